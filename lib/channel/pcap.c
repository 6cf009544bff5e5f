/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/pcap.c — the pcap file sink behind CHAN_CONS_PCAP channels.
 *
 * A sink is a libpcap "dead" handle (Ethernet link type) plus a dumper. It
 * is process-local (it holds a FILE), owned by the named channel that opened
 * it and shared with that channel's per-flow channels; its lock keeps two
 * drains from interleaving records. Multi-segment mbufs are linearized into
 * a bounce buffer of snaplen bytes. Built without libpcap, opening a sink
 * fails with ENOTSUP.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "chan_priv.h"

#ifdef GUFC_HAVE_PCAP

#include <pcap/pcap.h>

/** Largest snap length accepted (libpcap's own maximum). */
#define CHAN_PCAP_SNAPLEN_MAX 262144u

struct chan_pcap {
	pcap_t *p;
	pcap_dumper_t *d;
	char *path;
	uint32_t snaplen;
	rte_spinlock_t lock;
	uint8_t bounce[]; /**< snaplen bytes, for multi-segment packets */
};

struct chan_pcap *
chan_pcap_open(const char *path, uint32_t snaplen, int *err)
{
	struct chan_pcap *s;

	if (path == NULL || path[0] == '\0' || snaplen == 0 || snaplen > CHAN_PCAP_SNAPLEN_MAX) {
		*err = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s) + snaplen);
	if (s == NULL) {
		*err = ENOMEM;
		return NULL;
	}
	rte_spinlock_init(&s->lock);
	s->snaplen = snaplen;
	s->path = strdup(path);
	if (s->path == NULL) {
		*err = ENOMEM;
		goto fail;
	}
	s->p = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	if (s->p == NULL) {
		*err = ENOMEM;
		goto fail;
	}
	errno = 0;
	s->d = pcap_dump_open(s->p, path);
	if (s->d == NULL) {
		*err = errno != 0 ? errno : EIO;
		CHAN_LOG(DEBUG, "pcap_dump_open %s: %s", path, pcap_geterr(s->p));
		goto fail;
	}
	return s;

fail:
	if (s->p != NULL)
		pcap_close(s->p);
	free(s->path);
	free(s);
	return NULL;
}

void
chan_pcap_write(struct chan_pcap *s, struct rte_mbuf **m, unsigned int n)
{
	struct pcap_pkthdr hdr;
	struct timeval now;
	const void *data;
	unsigned int i;

	gettimeofday(&now, NULL);
	rte_spinlock_lock(&s->lock);
	for (i = 0; i < n; i++) {
		hdr.ts = now;
		hdr.len = m[i]->pkt_len;
		hdr.caplen = RTE_MIN(m[i]->pkt_len, s->snaplen);
		data = rte_pktmbuf_read(m[i], 0, hdr.caplen, s->bounce);
		if (data == NULL)
			continue; /* cannot happen: caplen <= pkt_len */
		pcap_dump((u_char *)s->d, &hdr, data);
	}
	rte_spinlock_unlock(&s->lock);
}

const char *
chan_pcap_path(const struct chan_pcap *s)
{
	return s->path;
}

void
chan_pcap_close(struct chan_pcap *s)
{
	if (s == NULL)
		return;
	pcap_dump_flush(s->d);
	pcap_dump_close(s->d);
	pcap_close(s->p);
	free(s->path);
	free(s);
}

#else /* !GUFC_HAVE_PCAP */

struct chan_pcap {
	char unused;
};

struct chan_pcap *
chan_pcap_open(const char *path, uint32_t snaplen, int *err)
{
	RTE_SET_USED(path);
	RTE_SET_USED(snaplen);
	*err = ENOTSUP;
	return NULL;
}

void
chan_pcap_write(struct chan_pcap *s, struct rte_mbuf **m, unsigned int n)
{
	RTE_SET_USED(s);
	RTE_SET_USED(m);
	RTE_SET_USED(n);
}

const char *
chan_pcap_path(const struct chan_pcap *s)
{
	RTE_SET_USED(s);
	return "";
}

void
chan_pcap_close(struct chan_pcap *s)
{
	RTE_SET_USED(s);
}

#endif /* GUFC_HAVE_PCAP */
