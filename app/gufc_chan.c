/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_chan.c — channel provisioning: the channels a rule set names.
 */

#include <errno.h>
#include <string.h>

#include "gufc.h"

int
gufc_channels_for_rules(struct gufc_app *app, const struct rule_set *set)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int c = 0; c < rule_set_chain_count(set, t); c++) {
			const struct rule_chain *ch = rule_set_chain_at(set, t, c);

			for (uint32_t i = 0; i < ch->n_rules; i++) {
				const char *name = ch->rules[i].channel;
				struct chan_params p;
				char path[GUFC_PATH_MAX + CHAN_NAMESIZE + 8];
				int rc;

				if (name[0] == '\0' || chan_lookup(app->chans, name) >= 0)
					continue;
				memset(&p, 0, sizeof(p));
				p.name = name;
				p.ring_size = app->cfg.set.channel_size;
				if (app->cfg.pcap_dir[0] != '\0') {
					snprintf(path, sizeof(path), "%s/%s.pcap", app->cfg.pcap_dir,
						name);
					p.kind = CHAN_CONS_PCAP;
					p.pcap_path = path;
				} else {
					p.kind = CHAN_CONS_DISCARD;
				}
				rc = chan_create(app->chans, &p);
				if (rc < 0) {
					GUFC_LOG(ERR, "channel '%s' named by rule %u: %s", name,
						ch->rules[i].id, strerror(-rc));
					return rc;
				}
				GUFC_LOG(INFO, "channel '%s' (named by rule %u): %s%s%s", name,
					ch->rules[i].id, chan_kind_name(p.kind),
					p.kind == CHAN_CONS_PCAP ? " " : "",
					p.kind == CHAN_CONS_PCAP ? path : "");
			}
		}
	}
	return 0;
}
