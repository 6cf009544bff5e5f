/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_port.c — ethdev setup: every probed port gets N RX queues spread
 * by RSS with a symmetric key (both directions of a flow land on the same
 * queue, hence the same RX lcore) where the device supports RSS, and the TX
 * queues its TX channels name (queue 0 at least). Ports are paired for
 * default forwarding like testpmd's paired mode: 0<->1, 2<->3; an odd last
 * port (or a single port) forwards to itself. With --offload, each started
 * port gets its offload state (gufc_offload.c), which probes what the NIC
 * (or the software NIC model) can do.
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#ifdef GUFC_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "gufc.h"

/*
 * The --vdev arguments of the EAL part of the command line, noted before
 * EAL consumes them (gufc_vdevs_note()): a virtual port that was asked for
 * and did not come up is a startup error, and where a port's packets come
 * from (a file, a live source, nothing) decides --lossless auto.
 */
#define GUFC_MAX_VDEVS 64
static struct {
	char name[RTE_ETH_NAME_MAX_LEN];
	char arg[256];
} vdevs[GUFC_MAX_VDEVS];
static unsigned int n_vdevs;

void
gufc_vdevs_note(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *v = NULL;
		size_t len;

		if (strncmp(argv[i], "--vdev=", 7) == 0)
			v = argv[i] + 7;
		else if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			v = argv[++i];
		if (v == NULL || n_vdevs == GUFC_MAX_VDEVS)
			continue;
		len = strcspn(v, ",");
		if (len == 0 || len >= sizeof(vdevs[0].name))
			continue;
		memcpy(vdevs[n_vdevs].name, v, len);
		vdevs[n_vdevs].name[len] = '\0';
		snprintf(vdevs[n_vdevs].arg, sizeof(vdevs[0].arg), "%s", v);
		n_vdevs++;
	}
}

const char *
gufc_vdev_args(const char *name)
{
	for (unsigned int i = 0; i < n_vdevs; i++)
		if (strcmp(vdevs[i].name, name) == 0)
			return vdevs[i].arg;
	return NULL;
}

/* Does the devargs text @p arg have key @p key ("rx_pcap")? */
static bool
devarg_has(const char *arg, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = strchr(arg, ','); p != NULL; p = strchr(p + 1, ','))
		if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '=')
			return true;
	return false;
}

/*
 * Where port @p pid's packets come from: a net_pcap vdev reading a file
 * (rx_pcap, not infinite_rx), replaying one from memory (infinite_rx), none
 * (net_pcap without an RX source, net_null with no-rx=1), or anything else:
 * live (a NIC, a tap, an interface, a generator).
 */
static enum gufc_rx_src
port_rx_src(const char *name)
{
	for (unsigned int i = 0; i < n_vdevs; i++) {
		const char *a = vdevs[i].arg;

		if (strcmp(vdevs[i].name, name) != 0)
			continue;
		if (strncmp(name, "net_pcap", 8) == 0) {
			if (devarg_has(a, "rx_iface") || devarg_has(a, "rx_iface_in") ||
				devarg_has(a, "iface"))
				return GUFC_RX_LIVE;
			/* infinite_rx=1 replays the file from memory, endlessly: a
			 * generator that never blocks nor ends (live for the
			 * datapath), whose next packet waits while gufc does not
			 * read (a replay for --lossless auto). */
			if (strstr(a, "infinite_rx=1") != NULL)
				return GUFC_RX_REPLAY;
			return devarg_has(a, "rx_pcap") ? GUFC_RX_FILE : GUFC_RX_NONE;
		}
		if (strncmp(name, "net_null", 8) == 0 && strstr(a, "no-rx=1") != NULL)
			return GUFC_RX_NONE;
		return GUFC_RX_LIVE;
	}
	return GUFC_RX_LIVE;
}

/*
 * Port @p name reads capture files (GUFC_RX_FILE): may a read block? Each
 * rx_pcap path that is not a regular file (a FIFO, a character device,
 * one stat() cannot see) may wait for more input; a regular file's read
 * returns at once, with a packet or at its end.
 */
static bool
port_rx_block(const char *name)
{
	const char *a = gufc_vdev_args(name);
	char path[PATH_MAX];
	struct stat sb;

	if (a == NULL)
		return true;
	for (const char *p = strchr(a, ','); p != NULL; p = strchr(p + 1, ',')) {
		size_t n;

		if (strncmp(p + 1, "rx_pcap=", 8) != 0)
			continue;
		n = strcspn(p + 9, ",");
		if (n >= sizeof(path))
			return true;
		memcpy(path, p + 9, n);
		path[n] = '\0';
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			return true;
	}
	return false;
}

/* Capture files that are not Ethernet (the frames: gufc_l2.c) */

#ifdef GUFC_HAVE_PCAP
/* The kind of libpcap link type @p dlt, or -1 if gufc cannot read it. */
static int
l2_of_dlt(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return GUFC_L2_ETH;
	case DLT_LINUX_SLL:
		return GUFC_L2_SLL;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		return GUFC_L2_SLL2;
#endif
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
	case DLT_IPV6:
#endif
		return GUFC_L2_RAW;
	case DLT_NULL:
		return GUFC_L2_NULL;
#ifdef DLT_LOOP
	case DLT_LOOP:
		return GUFC_L2_LOOP;
#endif
	default:
		return -1;
	}
}

/* The link type of capture @p file: its kind in *l2. @return 0 or -EINVAL (logged). */
static int
file_l2(uint16_t pid, const char *pname, const char *file, uint8_t *l2)
{
	char err[PCAP_ERRBUF_SIZE];
	struct stat st;
	pcap_t *pc;
	int dlt, k;

	/* A FIFO is read once, by net_pcap: opening it here would eat its first packets. */
	if (stat(file, &st) == 0 && S_ISFIFO(st.st_mode)) {
		*l2 = GUFC_L2_ETH;
		return 0;
	}
	pc = pcap_open_offline(file, err);
	if (pc == NULL) {
		/* net_pcap reports what it cannot open. */
		*l2 = GUFC_L2_ETH;
		return 0;
	}
	dlt = pcap_datalink(pc);
	pcap_close(pc);
	k = l2_of_dlt(dlt);
	if (k < 0) {
		const char *n = pcap_datalink_val_to_name(dlt);

		GUFC_LOG(ERR, "port %u (%s): rx_pcap=%s: link type %s (%d) cannot be read: gufc "
			"reads Ethernet, Linux cooked (SLL, SLL2), raw IP and BSD loopback "
			"captures; nothing started", pid, pname, file, n != NULL ? n : "unknown", dlt);
		return -EINVAL;
	}
	*l2 = (uint8_t)k;
	return 0;
}
#endif

int
gufc_l2_setup(struct gufc_app *app, uint16_t pid)
{
	struct gufc_port *p = &app->ports[pid];
	const char *a = gufc_vdev_args(p->name);
	unsigned int q = 0;

	memset(p->l2, GUFC_L2_ETH, sizeof(p->l2));
	p->l2_conv = false;
	if (a == NULL || strncmp(p->name, "net_pcap", 8) != 0)
		return 0;
	/* net_pcap makes one RX queue per rx_pcap, in the order given. */
	for (const char *c = strchr(a, ','); c != NULL; c = strchr(c + 1, ',')) {
		char file[PATH_MAX];
		size_t len;

		if (strncmp(c + 1, "rx_pcap=", 8) != 0)
			continue;
		len = strcspn(c + 9, ",");
		if (len == 0 || len >= sizeof(file) || q == GUFC_MAX_RXQ)
			continue;
		memcpy(file, c + 9, len);
		file[len] = '\0';
#ifdef GUFC_HAVE_PCAP
		if (file_l2(pid, p->name, file, &p->l2[q]) != 0)
			return -EINVAL;
		if (p->l2[q] != GUFC_L2_ETH) {
			p->l2_conv = true;
			GUFC_LOG(NOTICE, "port %u (%s): rx_pcap=%s is a %s capture: its frames "
				"are read as Ethernet frames made from it", pid, p->name, file,
				gufc_l2_name(p->l2[q]));
		}
#else
		GUFC_LOG(WARNING, "port %u (%s): rx_pcap=%s: built without libpcap, its link "
			"type is not checked (read as Ethernet)", pid, p->name, file);
#endif
		q++;
	}
	return 0;
}

int
gufc_vdevs_check(void)
{
	int rc = 0;

	for (unsigned int i = 0; i < n_vdevs; i++) {
		uint16_t pid;

		if (strncmp(vdevs[i].name, "net_", 4) != 0)
			continue; /* not an ethdev (crypto, ...) */
		if (rte_eth_dev_get_port_by_name(vdevs[i].name, &pid) == 0)
			continue;
		GUFC_LOG(ERR, "--vdev %s: no port came up for it (the driver refused it: see "
			"the EAL messages above); nothing started", vdevs[i].arg);
		rc = -ENODEV;
	}
	return rc;
}

/*
 * A key made of one repeated 16-bit pattern gives the Toeplitz hash the same
 * value for (src, dst, sport, dport) and (dst, src, dport, sport).
 */
static void
symmetric_key(uint8_t *key, unsigned int len)
{
	for (unsigned int i = 0; i < len; i++)
		key[i] = (i & 1) ? 0x5a : 0x6d;
}

/*
 * A port whose configured MTU is above Ethernet's 1500 (jumbo frames: `port
 * N mtu 9000`) gets that MTU on the device itself, as `ip link set mtu`
 * gives a Linux interface both: the device then receives and sends such
 * frames. A frame longer than one mbuf's data room (2048 bytes) arrives as
 * a chain of mbufs (RX scatter) and leaves as one (TX multi-segment); the
 * datapath handles chained packets (headers in the first segment); a
 * device without RX scatter chains them itself or not at all (net_pcap
 * does). An MTU over the device's frame limit is refused, as Linux
 * refuses it (DPDK 22.11's net_tap: 1522 bytes). The MTU is never lowered below the
 * device's own: a smaller routing MTU (`mtu 1280`) only makes gufc
 * fragment or send "too big" as a Linux router does.
 * @return 0, or -EINVAL (logged) for an MTU the device cannot take.
 */
static int
port_mtu_conf(struct gufc_app *app, uint16_t pid, const struct rte_eth_dev_info *info,
	struct rte_eth_conf *conf)
{
	const struct gufc_port *p = &app->ports[pid];
	uint16_t mtu = app->cfg.port[pid].mtu;
	uint32_t frame, room;

	if (mtu <= RTE_ETHER_MTU)
		return 0;
	if (mtu > info->max_mtu) {
		GUFC_LOG(ERR, "port %u (%s): mtu %u: the device takes at most %u; nothing started",
			pid, p->name, mtu, info->max_mtu);
		return -EINVAL;
	}
	if ((uint32_t)mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > info->max_rx_pktlen) {
		/* As `ip link set mtu` refuses an MTU over the device's maximum.
		 * DPDK 22.11's net_tap says 1522 whatever its interface's MTU
		 * (and drops longer frames it is given to send). */
		GUFC_LOG(ERR, "port %u (%s): mtu %u: the device takes frames of %u bytes at most "
			"(MTU %u); nothing started", pid, p->name, mtu, info->max_rx_pktlen,
			info->max_rx_pktlen - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN);
		return -EINVAL;
	}
	conf->rxmode.mtu = mtu;
	/* The frame: Ethernet header, two VLAN tags, the FCS some devices keep. */
	frame = (uint32_t)mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN;
	room = rte_pktmbuf_data_room_size(app->pool) - RTE_PKTMBUF_HEADROOM;
	if (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (frame <= room)
		return 0;
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	else
		GUFC_LOG(INFO, "port %u (%s): mtu %u: frames up to %u bytes, mbufs hold %u "
			"and the device has no RX scatter: its driver chains longer frames "
			"(net_pcap does) or refuses them", pid, p->name, mtu, frame, room);
	return 0;
}

uint16_t
gufc_port_dev_mtu_now(struct gufc_app *app, uint16_t pid)
{
	uint16_t mtu;

	if (rte_eth_dev_get_mtu(app->ports[pid].dev, &mtu) == 0)
		app->ports[pid].dev_mtu = mtu;
	return app->ports[pid].dev_mtu;
}

/* gufc_port_dev_mtu() but for noting the result. */
static int
dev_mtu_set(struct gufc_app *app, uint16_t pid, uint16_t mtu, uint16_t *prev, char *why, size_t n)
{
	const struct gufc_port *p = &app->ports[pid];
	uint16_t want = mtu > RTE_ETHER_MTU ? mtu : p->dev_mtu0, cur;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint32_t frame, room;
	int rc;

	if (rte_eth_dev_get_mtu(pid, &cur) != 0)
		cur = p->dev_mtu0;
	*prev = cur;
	if (want == cur)
		return 0;
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc == 0)
		rc = rte_eth_dev_conf_get(pid, &conf);
	if (rc != 0) {
		snprintf(why, n, "device info: %s", rte_strerror(-rc));
		return rc;
	}
	if (want > info.max_mtu) {
		snprintf(why, n, "the device takes at most %u", info.max_mtu);
		return -EINVAL;
	}
	if ((uint32_t)want + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > info.max_rx_pktlen) {
		snprintf(why, n, "the device takes frames of %u bytes at most (MTU %u)",
			info.max_rx_pktlen,
			info.max_rx_pktlen - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN);
		return -EINVAL;
	}
	/* As port_mtu_conf() sizes it: frames past one mbuf need the offloads. */
	frame = (uint32_t)want + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN;
	room = rte_pktmbuf_data_room_size(app->pool) - RTE_PKTMBUF_HEADROOM;
	if (frame > room &&
		(((info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) &&
			 !(conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER)) ||
			((info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
				!(conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)))) {
		snprintf(why, n, "frames of %u bytes pass an mbuf (%u) and the port was started "
			"without RX scatter / TX multi-segment: set this MTU at start "
			"(the config's 'port %u mtu %u')", frame, room, pid, want);
		return -ENOTSUP;
	}
	rc = rte_eth_dev_set_mtu(pid, want);
	if (rc == -ENOTSUP)
		return 0; /* no MTU of its own (as at start) */
	if (rc != 0)
		snprintf(why, n, "the device refused MTU %u: %s", want, rte_strerror(-rc));
	return rc;
}

int
gufc_port_dev_mtu(struct gufc_app *app, uint16_t pid, uint16_t mtu, uint16_t *prev, char *why,
	size_t n)
{
	int rc = dev_mtu_set(app, pid, mtu, prev, why, n);

	(void)gufc_port_dev_mtu_now(app, pid);
	return rc;
}

static int
port_setup(struct gufc_app *app, uint16_t pid)
{
	struct gufc_port *p = &app->ports[pid];
	const struct gufc_settings *s = &app->cfg.set;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	static uint8_t rss_key[64];
	uint16_t nrxd = (uint16_t)s->rxd;
	uint16_t ntxd = (uint16_t)s->txd;
	int socket = rte_eth_dev_socket_id(pid);
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0) {
		GUFC_LOG(ERR, "port %u: dev_info: %s", pid, rte_strerror(-rc));
		return rc;
	}
	rte_eth_dev_get_name_by_port(pid, p->name);
	p->rx_src = (uint8_t)port_rx_src(p->name);
	p->rx_block = p->rx_src == GUFC_RX_FILE && port_rx_block(p->name);
	rc = gufc_l2_setup(app, pid);
	if (rc != 0)
		return rc;
	p->n_rxq = (uint16_t)RTE_MIN(s->rxq, (uint32_t)info.max_rx_queues);
	if (p->n_rxq < s->rxq)
		GUFC_LOG(NOTICE, "port %u (%s): %u RX queue(s) only (asked for %u)", pid, p->name,
			p->n_rxq, s->rxq);
	if (p->n_txq > info.max_tx_queues) {
		GUFC_LOG(ERR, "port %u (%s): a TX channel names queue %u, device has %u", pid,
			p->name, p->n_txq - 1, info.max_tx_queues);
		return -EINVAL;
	}
	if (p->n_rxq > 1 && info.flow_type_rss_offloads != 0) {
		unsigned int klen = info.hash_key_size ? info.hash_key_size : 40;

		if (klen > sizeof(rss_key))
			klen = sizeof(rss_key);
		symmetric_key(rss_key, klen);
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_key = rss_key;
		conf.rx_adv_conf.rss_conf.rss_key_len = (uint8_t)klen;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	} else if (p->n_rxq > 1 && p->rx_src != GUFC_RX_FILE) {
		/* A file-backed port's queues are its files (net_pcap: one per
		 * rx_pcap): they need no RSS to spread flows. */
		GUFC_LOG(NOTICE, "port %u (%s): no RSS, using 1 RX queue", pid, p->name);
		p->n_rxq = 1;
	}
	if (rte_eth_dev_get_mtu(pid, &p->dev_mtu0) != 0 || p->dev_mtu0 < GUFC_MTU_MIN)
		p->dev_mtu0 = RTE_ETHER_MTU;
	rc = port_mtu_conf(app, pid, &info, &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_configure(pid, p->n_rxq, p->n_txq, &conf);
	if (rc != 0 && p->n_rxq != p->n_txq) {
		/*
		 * Some PMDs (net_tap) take only as many RX as TX queues: raise the
		 * smaller count to the larger. Extra RX queues are polled like the
		 * others (queues_assign()), extra TX queues stay unused.
		 */
		uint16_t n = RTE_MAX(p->n_rxq, p->n_txq);

		if (n <= info.max_rx_queues && n <= info.max_tx_queues &&
			rte_eth_dev_configure(pid, n, n, &conf) == 0) {
			GUFC_LOG(NOTICE, "port %u (%s): %u RX and %u TX queues refused; the "
				"device takes equal counts: %u of each", pid, p->name, p->n_rxq,
				p->n_txq, n);
			p->n_rxq = n;
			p->n_txq = n;
			rc = 0;
		}
	}
	if (rc != 0) {
		GUFC_LOG(ERR, "port %u (%s): configure: %s", pid, p->name, rte_strerror(-rc));
		return rc;
	}
	/* The device's own MTU (a tap's interface, a NIC's frame limit): ethdev
	 * notes rxmode.mtu, the PMD applies it here. */
	if (conf.rxmode.mtu != 0) {
		rc = rte_eth_dev_set_mtu(pid, (uint16_t)conf.rxmode.mtu);
		if (rc != 0 && rc != -ENOTSUP) {
			GUFC_LOG(ERR, "port %u (%s): mtu %u: %s; nothing started", pid, p->name,
				conf.rxmode.mtu, rte_strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrxd, &ntxd);
	if (rc != 0)
		return rc;
	for (uint16_t q = 0; q < p->n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(pid, q, nrxd, socket, NULL, app->pool);
		if (rc != 0) {
			GUFC_LOG(ERR, "port %u: rx queue %u: %s", pid, q, rte_strerror(-rc));
			return rc;
		}
	}
	for (uint16_t q = 0; q < p->n_txq; q++) {
		rc = rte_eth_tx_queue_setup(pid, q, ntxd, socket, NULL);
		if (rc != 0) {
			GUFC_LOG(ERR, "port %u: tx queue %u: %s", pid, q, rte_strerror(-rc));
			return rc;
		}
	}
	rte_eth_macaddr_get(pid, &p->mac);
	if (s->promisc)
		rte_eth_promiscuous_enable(pid); /* not every PMD can: not an error */
	rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		GUFC_LOG(ERR, "port %u (%s): start: %s", pid, p->name, rte_strerror(-rc));
		return rc;
	}
	(void)gufc_port_dev_mtu_now(app, pid);
	return 0;
}

/*
 * The VLAN sub-interfaces of the config ("port N vlan VID parent P"), once
 * the devices are up: each a port without queues, its parent's MAC, in its
 * parent's VLAN map (struct gufc_port::vmap). Paired for default
 * forwarding with the sub-interface of the same VLAN on its parent's pair
 * if there is one, else with itself.
 * @return 0, or -errno (logged).
 */
static int
vlans_init(struct gufc_app *app)
{
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		const struct gufc_port_cfg *pc = &app->cfg.port[pid];
		struct gufc_port *p = &app->ports[pid], *par;

		if (pc->vid == 0)
			continue;
		par = &app->ports[pc->parent];
		if (p->used || !par->used || par->vlan) {
			GUFC_LOG(ERR, "port %u (VLAN %u of port %u): %s; nothing started", pid,
				pc->vid, pc->parent, p->used ? "a device has this id" :
				"no such parent device");
			return -ENODEV;
		}
		if (par->vmap == NULL) {
			par->vmap = calloc(1, sizeof(*par->vmap));
			if (par->vmap == NULL)
				return -ENOMEM;
		}
		par->vmap->port[pc->vid] = (uint16_t)(pid + 1);
		par->n_vlans++;
		p->used = true;
		p->vlan = true;
		p->vid = pc->vid;
		p->dev = pc->parent;
		p->rx_src = par->rx_src;
		p->rx_block = par->rx_block;
		p->n_rxq = 0;
		p->n_txq = 0;
		p->mac = par->mac;
		p->dev_mtu0 = par->dev_mtu0;
		p->dev_mtu = par->dev_mtu;
		memset(p->l2, GUFC_L2_ETH, sizeof(p->l2));
		snprintf(p->name, sizeof(p->name), "%s.%u", par->name, pc->vid);
	}
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		struct gufc_port *p = &app->ports[pid];
		const struct gufc_port *pair;

		if (!p->vlan)
			continue;
		pair = &app->ports[app->ports[p->dev].pair];
		p->pair = pid;
		if (pair->vmap != NULL && pair->vmap->port[p->vid] != 0)
			p->pair = (uint16_t)(pair->vmap->port[p->vid] - 1);
		GUFC_LOG(INFO, "port %u (%s): VLAN %u of port %u, pair %u", pid, p->name, p->vid,
			p->dev, p->pair);
	}
	return 0;
}

int
gufc_ports_init(struct gufc_app *app)
{
	uint16_t pid;
	uint16_t n = 0;
	int rc;

	RTE_ETH_FOREACH_DEV(pid)
	{
		if (pid >= GUFC_MAX_PORTS) {
			GUFC_LOG(WARNING, "port %u ignored (at most %u ports)", pid, GUFC_MAX_PORTS);
			continue;
		}
		app->ports[pid].used = true;
		app->ports[pid].dev = pid;
		if (app->ports[pid].n_txq == 0)
			app->ports[pid].n_txq = 1;
		n++;
	}
	if (n == 0) {
		GUFC_LOG(ERR, "no ports: give a device or a --vdev (e.g. net_pcap0,...)");
		return -ENODEV;
	}
	app->n_ports = n;
	/* Pair ports in id order: 1st<->2nd, 3rd<->4th; an odd last one is its own pair. */
	{
		int prev = -1;

		for (pid = 0; pid < GUFC_MAX_PORTS; pid++) {
			if (!app->ports[pid].used)
				continue;
			if (prev < 0) {
				prev = pid;
				app->ports[pid].pair = pid;
			} else {
				app->ports[pid].pair = (uint16_t)prev;
				app->ports[prev].pair = pid;
				prev = -1;
			}
		}
	}
	for (pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		if (!app->ports[pid].used)
			continue;
		rc = port_setup(app, pid);
		if (rc != 0)
			return rc;
		GUFC_LOG(INFO, "port %u (%s): %u rx queue(s), %u tx queue(s), pair %u", pid,
			app->ports[pid].name, app->ports[pid].n_rxq, app->ports[pid].n_txq,
			app->ports[pid].pair);
	}
	rc = vlans_init(app);
	if (rc != 0)
		return rc;
	return gufc_offload_ports_init(app);
}

void
gufc_ports_fini(struct gufc_app *app)
{
	/* Rules out of the NICs and RX callbacks off the queues while the ports live. */
	gufc_offload_fini(app);
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		free(app->ports[pid].vmap);
		app->ports[pid].vmap = NULL;
		if (!app->ports[pid].used || app->ports[pid].vlan)
			continue;
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
}
