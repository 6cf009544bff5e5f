/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — the SIP helper's pure part: the message parser
 * (request line, headers, the session description's media), and the
 * rewrite behind NAT. Part of conntrack_helper.h (which includes it in
 * place; include conntrack_helper.h).
 */
#ifndef GUFC_CONNTRACK_SIP_H
#define GUFC_CONNTRACK_SIP_H

#ifdef __cplusplus
extern "C" {
#endif


/** SIP methods (RFC 3261, 3262, 3311) the SIP helper tells apart. */
enum mod_ct_sip_method {
	MOD_CT_SIP_OTHER,
	MOD_CT_SIP_INVITE,
	MOD_CT_SIP_ACK,
	MOD_CT_SIP_BYE,
	MOD_CT_SIP_CANCEL,
	MOD_CT_SIP_REGISTER,
	MOD_CT_SIP_UPDATE,
	MOD_CT_SIP_PRACK,
	MOD_CT_SIP_OPTIONS,
	MOD_CT_SIP_METHODS
};

/** Media types whose streams a session description makes expected (Linux's). */
#define MOD_CT_SIP_AUDIO 1
#define MOD_CT_SIP_VIDEO 2
#define MOD_CT_SIP_IMAGE 3 /**< T.38 fax */
/** Most media streams read per message (Linux's: one per type). */
#define MOD_CT_SIP_MEDIA_MAX 3

/** One announced media stream: RTP to addr:port (RTCP to the next odd port). */
struct mod_ct_sip_media {
	uint8_t type;      /**< MOD_CT_SIP_AUDIO, _VIDEO, _IMAGE */
	uint8_t addr[16];  /**< the stream's c= address, else the session's; network order */
	uint16_t port;     /**< host order, 1024 .. 65535 */
	uint16_t port_off; /**< offset of the port's digits on the m= line ... */
	uint16_t port_len; /**< ... and their count (what a NAT rewrites) */
	uint16_t c_off;    /**< the stream's own c= address text (0 length: none) ... */
	uint16_t c_len;    /**< ... its length */
};

/** What mod_ct_sip_parse() reads of a message. */
struct mod_ct_sip_msg {
	bool response;   /**< a response (status line), else a request */
	bool sdp;        /**< a session description was read (see mod_ct_sip_parse()) */
	uint8_t method;  /**< enum mod_ct_sip_method: a request's; a response's CSeq method */
	uint16_t status; /**< a response's code */
	uint32_t cseq;   /**< the CSeq number */
	uint8_t n_media; /**< streams in @c media (ports of 0, other types left out) */
	uint16_t sdp_off; /**< with @c sdp: offset just after the "v=" */
	struct mod_ct_sip_media media[MOD_CT_SIP_MEDIA_MAX];
};

/**
 * Read a SIP message (one UDP payload) as Linux's nf_conntrack_sip does:
 * the start line ("SIP/2.0 CODE" is a response, else a request named by
 * its method, case-insensitive, followed by a space and a letter); the
 * CSeq header (at a line start, "CSeq", blanks, ':', blanks, digits; a
 * response's answered method one character after them); and, in an
 * INVITE, UPDATE, ACK or PRACK request or a 1xx/2xx response to INVITE,
 * UPDATE or PRACK, the session description from its "v=" line: the
 * session's "c=... IN IP4|IP6 ADDR" (of @p family), then each "m=audio|
 * video|image PORT" line (exact case, as Linux) with its own c= line
 * before the next m=, else the session's; at most
 * MOD_CT_SIP_MEDIA_MAX streams; a port of 0 is an inactive stream.
 * @param data    the UDP payload
 * @param len     its length
 * @param family  the connection's family (the addresses read are of it)
 * @param m       receives the message
 * @return 1: a response, or a request of a method listed in enum
 *   mod_ct_sip_method; 0: a request of another method, or no SIP
 *   (nothing read); -EBADMSG: what Linux drops: a response code of 0, no
 *   CSeq number, a media port below 1024 or above 65535, a stream with no
 *   address; -EINVAL: NULL or a bad @p family.
 * Context: any.
 */
int mod_ct_sip_parse(const uint8_t *data, uint32_t len, uint8_t family, struct mod_ct_sip_msg *m);

/** Most text edits one SIP message gets behind NAT. */
#define MOD_CT_SIP_EDITS_MAX 16

/**
 * One edit a helper makes to a payload behind NAT: bytes [@c off, @c off +
 * @c len_old) become @c text[0, @c len_new). Lists of edits are kept in
 * order of offset, none overlapping.
 */
struct mod_ct_edit {
	uint16_t off;
	uint16_t len_old;
	uint8_t len_new;
	char text[55]; /**< "[IPv6]:port" at most; not NUL-terminated */
};

/**
 * A SIP connection as the NAT rewrite sees it (Linux's two tuples): the
 * message's own direction as it was sent, and the other direction as its
 * sender sees it (after NAT). Addresses network order, ports host order.
 */
struct mod_ct_sip_conn {
	uint8_t family;  /**< FC_AF_INET4 or FC_AF_INET6 */
	uint8_t proto;   /**< 17 (Via ".../UDP") or 6 (".../TCP") */
	uint8_t src[16]; /**< this direction: source ... */
	uint8_t dst[16]; /**< ... destination */
	uint16_t sport;
	uint16_t dport;
	uint8_t osrc[16]; /**< the other direction: source ... */
	uint8_t odst[16]; /**< ... destination */
	uint16_t osport;
	uint16_t odport;
	uint16_t forced_dport; /**< not 0: the port this direction's source listens on (a
				    request's Via named it: Cisco phones); what its
				    address:port maps to instead of @c osport */
};

/**
 * The header rewrite of a SIP message on a connection behind NAT (Linux's
 * nf_nat_sip): in a request the Request-URI's address; the topmost Via of
 * the connection's transport when it names this side (a request's source,
 * a response's destination), with its maddr=, received= and rport=
 * parameters; every Contact; From and To. An address:port (a missing port
 * is 5060) that is this direction's source becomes the other direction's
 * destination, one that is its destination the other's source, always
 * written "ADDR:PORT" ("[ADDR]:PORT" for IPv6); others stay.
 * @param data  the message
 * @param len   its length
 * @param c     the connection
 * @param e     the edit list: the edits are added in order
 * @param n     edits already in @p e (an edit overlapping one is skipped)
 * @param max   room in @p e
 * @return the new count; -ENOSPC (more than @p max); -EINVAL (NULL).
 * Context: any.
 */
int mod_ct_sip_nat_headers(const uint8_t *data, uint32_t len, const struct mod_ct_sip_conn *c,
	struct mod_ct_edit *e, unsigned int n, unsigned int max);

/** What the NAT makes of one media stream of a session description. */
struct mod_ct_sip_media_nat {
	uint8_t addr[16]; /**< the address the stream is announced at (Linux's rtp_addr) */
	uint16_t port;    /**< with @c new_port: the port written on its m= line */
	bool new_port;
};

/**
 * The session description's rewrite behind NAT (Linux's nf_nat_sdp_*):
 * per stream of @p m, the port (with new_port) and its own c= address (to
 * @p mn[i].addr, when it has one); then, when @p m has streams, the
 * session's o= address (required) and c= address (if any) to the last
 * stream's address; and Content-Length to the description's new length
 * (from its "v=" to the message's end).
 * @param data    the message
 * @param len     its length (the message's end)
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param m       its parse (mod_ct_sip_parse(), with @c sdp)
 * @param mn      one per stream of @p m
 * @param e       the edit list
 * @param n       edits already in it
 * @param max     its room
 * @return the new count; -EBADMSG (what Linux drops: no o= line with an
 *   address, no Content-Length); -ENOSPC; -EINVAL.
 * Context: any.
 */
int mod_ct_sip_nat_sdp(const uint8_t *data, uint32_t len, uint8_t family,
	const struct mod_ct_sip_msg *m, const struct mod_ct_sip_media_nat *mn, struct mod_ct_edit *e,
	unsigned int n, unsigned int max);

/**
 * Write @p data with the edits @p e applied to @p out.
 * @param data  the original bytes
 * @param len   their count
 * @param e     edits, in order, not overlapping, inside @p len
 * @param n     their count
 * @param out   destination (not overlapping @p data)
 * @param size  its size
 * @return bytes written; -ENOSPC; -EINVAL (an edit out of order or range).
 * Context: any.
 */
int mod_ct_edit_apply(const uint8_t *data, uint32_t len, const struct mod_ct_edit *e,
	unsigned int n, uint8_t *out, uint32_t size);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_CONNTRACK_SIP_H */
