#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/iptables-corpus/check.sh: check the iptables rule-set corpus.
#
#   check.sh [--gufc BUILD_DIR] [--no-netfilter] [--backend nft|legacy] [FILE...]
#
# 1. netfilter: every file (or the FILEs given) is fed to the real
#    iptables-restore / ip6tables-restore, once with --test and once for real,
#    in a throwaway network namespace per file and backend (nft and legacy),
#    so the kernel checks every rule. A NAME.ipset file beside NAME.v4/.v6 is
#    loaded with `ipset restore` first. Needs root, `ip netns` and the
#    iptables binaries; without them this part is skipped (exit 77 when there
#    is nothing else to do).
# 2. gufc (with --gufc): every file is loaded by BUILD_DIR/app/gufc the way a
#    user would (--iptables FILE, or --ip6tables FILE for .v6 when gufc has that
#    option), on two net_null ports, with a shell script that only quits. One
#    line per file: loaded, refused-as-expected (the error names the option
#    that `expectations` says gufc must refuse) or FAILED with gufc's error.
#
# `expectations` lists the files that gufc must refuse and the files that only
# one netfilter backend accepts. Exit status: 0 if everything is as expected,
# 1 if not, 77 if nothing could be checked, 2 for bad usage.

set -u

here=$(cd "$(dirname "$0")" && pwd)
gufc_dir=
do_netfilter=1
backends="nft legacy"
files=()

usage() {
	sed -n '6p' "$0" | sed 's/^# */usage: /'
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--gufc)
		[ $# -ge 2 ] || usage
		gufc_dir=$2
		shift 2
		;;
	--no-netfilter)
		do_netfilter=0
		shift
		;;
	--backend)
		[ $# -ge 2 ] || usage
		case "$2" in nft|legacy) backends=$2 ;; *) usage ;; esac
		shift 2
		;;
	-h|--help)
		usage
		;;
	-*)
		echo "check.sh: unknown option '$1'" >&2
		usage
		;;
	*)
		files+=("$1")
		shift
		;;
	esac
done

if [ ${#files[@]} -eq 0 ]; then
	for f in "$here"/*.v4 "$here"/*.v6; do
		[ -e "$f" ] && files+=("$f")
	done
fi

# --- expectations ------------------------------------------------------------

declare -A exp_gufc exp_opts exp_nf
while read -r name g o n _; do
	case "$name" in ''|'#'*) continue ;; esac
	exp_gufc[$name]=$g
	exp_opts[$name]=$o
	exp_nf[$name]=$n
done < "$here/expectations"

nf_backends_for() { # FILE -> backends that must accept it
	local b=${exp_nf[$(basename "$1")]:-both}

	if [ "$b" = both ]; then
		echo "$backends"
	else
		case " $backends " in *" $b "*) echo "$b" ;; esac
	fi
}

ipset_for() { # FILE -> its NAME.ipset, if any
	local s="${1%.*}.ipset"

	[ -e "$s" ] && echo "$s"
}

status=0
ran=0

# --- 1. netfilter --------------------------------------------------------------

nf_reason=
if [ $do_netfilter -eq 1 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		nf_reason="not root"
	elif ! command -v ip >/dev/null; then
		nf_reason="no ip(8)"
	elif ! ip netns add "gufc-corpus-probe-$$" 2>/dev/null; then
		nf_reason="cannot create a network namespace"
	else
		ip netns del "gufc-corpus-probe-$$"
	fi
	if [ -z "$nf_reason" ]; then
		for b in $backends; do
			command -v "iptables-$b-restore" >/dev/null ||
				nf_reason="no iptables-$b-restore"
		done
	fi
	[ -n "$nf_reason" ] && echo "netfilter: skipped ($nf_reason)"
fi

nf_ns=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -n "$nf_ns" ] && ip netns del "$nf_ns" 2>/dev/null
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
}
trap cleanup EXIT
tmp=$(mktemp -d)

nf_ok=0
nf_total=0
if [ $do_netfilter -eq 1 ] && [ -z "$nf_reason" ]; then
	ran=1
	n=0
	for f in "${files[@]}"; do
		name=$(basename "$f")
		case "$name" in *.v6) fam=ip6tables ;; *) fam=iptables ;; esac
		sets=$(ipset_for "$f")
		want=$(nf_backends_for "$f")
		if [ -z "$want" ]; then
			printf 'netfilter  %-28s skipped (checked with %s only)\n' "$name" "${exp_nf[$name]}"
			continue
		fi
		nf_total=$((nf_total + 1))
		res=ok
		msg=
		for b in $want; do
			n=$((n + 1))
			nf_ns="gufc-corpus-$$-$n"
			ip netns add "$nf_ns" || { res=FAILED; msg="$b: cannot create namespace"; break; }
			if [ -n "$sets" ]; then
				if ! command -v ipset >/dev/null; then
					res=FAILED; msg="$b: needs ipset(8) for $(basename "$sets")"
				elif ! ip netns exec "$nf_ns" ipset restore < "$sets" > "$tmp/err" 2>&1; then
					res=FAILED; msg="$b: ipset restore: $(head -n 3 "$tmp/err" | tr '\n' ' ')"
				fi
			fi
			if [ $res = ok ] && ! ip netns exec "$nf_ns" "$fam-$b-restore" --test < "$f" > "$tmp/err" 2>&1; then
				res=FAILED; msg="$b --test: $(grep -v '^Warning' "$tmp/err" | head -n 3 | tr '\n' ' ')"
			fi
			if [ $res = ok ] && ! ip netns exec "$nf_ns" "$fam-$b-restore" < "$f" > "$tmp/err" 2>&1; then
				res=FAILED; msg="$b: $(grep -v '^Warning' "$tmp/err" | head -n 3 | tr '\n' ' ')"
			fi
			ip netns del "$nf_ns"
			nf_ns=
			[ $res = ok ] || break
		done
		if [ $res = ok ]; then
			nf_ok=$((nf_ok + 1))
			printf 'netfilter  %-28s ok (%s)\n' "$name" "${want// /, }"
		else
			status=1
			printf 'netfilter  %-28s FAILED: %s\n' "$name" "$msg"
		fi
	done
fi

# --- 2. gufc -------------------------------------------------------------------

g_load_ok=0
g_load_total=0
g_ref_ok=0
g_ref_total=0
if [ -n "$gufc_dir" ]; then
	gufc="$gufc_dir/app/gufc"
	if [ ! -x "$gufc" ]; then
		echo "check.sh: no gufc binary at $gufc" >&2
		exit 2
	fi
	ran=1

	# drop_runtime PREFIX: remove the runtime directory EAL made for PREFIX.
	drop_runtime() {
		local d

		for d in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk" /tmp/dpdk; do
			[ -d "$d/$1" ] && rm -rf "${d:?}/$1"
		done
	}

	eal=(--no-huge -m 512 --no-pci -l 0 --vdev=net_null0 --vdev=net_null1)
	help=$("$gufc" "${eal[@]}" --file-prefix "gufc-corpus-$$-help" -- --help 2>&1)
	drop_runtime "gufc-corpus-$$-help"
	has_opt() { case "$help" in *"$1"*) return 0 ;; esac; return 1; }
	printf 'quit\n' > "$tmp/quit"
	n=0

	# run_gufc LABEL EXPECT OPTIONS ARGS...: one load, one line of output.
	run_gufc() {
		local label=$1 expect=$2 opts=$3 rc err o hit=0

		shift 3
		n=$((n + 1))
		timeout 120 "$gufc" "${eal[@]}" --file-prefix "gufc-corpus-$$-$n" -- \
			"$@" --script "$tmp/quit" > "$tmp/out" 2>&1
		rc=$?
		drop_runtime "gufc-corpus-$$-$n"
		# The error names FILE:LINE:COL; other lines (notes, warnings) are not it.
		err=$(grep -m 1 -E '^gufc: .*:[0-9]+:[0-9]+: ' "$tmp/out")
		[ -n "$err" ] || err=$(grep '^gufc: ' "$tmp/out" | grep -v '^gufc: warning:' | head -n 1)
		[ -n "$err" ] || err=$(grep -v '^EAL\|^TELEMETRY' "$tmp/out" | tail -n 1)
		err=${err#gufc: }
		err=${err//$here\//}
		if [ "$expect" = refuse ]; then
			g_ref_total=$((g_ref_total + 1))
			if [ $rc -eq 0 ]; then
				status=1
				printf 'gufc       %-28s FAILED: loaded, but gufc must refuse %s\n' "$label" "$opts"
				return
			fi
			for o in ${opts//,/ }; do
				if echo "$err" | grep -qE "'(-m )?$o'|-m $o([^a-z0-9_-]|\$)"; then
					hit=1
				fi
			done
			if [ $hit -eq 1 ]; then
				g_ref_ok=$((g_ref_ok + 1))
				printf 'gufc       %-28s refused-as-expected: %s\n' "$label" "$err"
			else
				status=1
				printf 'gufc       %-28s FAILED (must refuse %s): %s\n' "$label" "$opts" "$err"
			fi
			return
		fi
		g_load_total=$((g_load_total + 1))
		if [ $rc -eq 0 ]; then
			g_load_ok=$((g_load_ok + 1))
			printf 'gufc       %-28s loaded\n' "$label"
		else
			status=1
			[ $rc -eq 124 ] && err="timed out after 120 s"
			printf 'gufc       %-28s FAILED: %s\n' "$label" "$err"
		fi
	}

	# file_args FILE: the options that load FILE (and its ipset file).
	file_args() {
		local f=$1 s

		case "$f" in
		*.v6) if has_opt --ip6tables; then echo "--ip6tables $f"; else echo "--iptables $f"; fi ;;
		*) echo "--iptables $f" ;;
		esac
		s=$(ipset_for "$f")
		[ -n "$s" ] && has_opt --ipset && echo "--ipset $s"
	}

	pairs=()
	for f in "${files[@]}"; do
		name=$(basename "$f")
		# shellcheck disable=SC2046
		run_gufc "$name" "${exp_gufc[$name]:-load}" "${exp_opts[$name]:--}" $(file_args "$f")
		if [ "${f%.v4}" != "$f" ] && [ -e "${f%.v4}.v6" ]; then
			pairs+=("${f%.v4}")
		fi
	done
	# Both families at once, as on a Linux host, once gufc can do that.
	if has_opt --ip6tables; then
		for p in "${pairs[@]}"; do
			b=$(basename "$p")
			e=load
			o=-
			for x in v4 v6; do
				if [ "${exp_gufc[$b.$x]:-load}" = refuse ]; then
					e=refuse
					o=${exp_opts[$b.$x]}
				fi
			done
			# shellcheck disable=SC2046
			run_gufc "$b.v4+v6" "$e" "$o" $(file_args "$p.v4") $(file_args "$p.v6" | grep -v "^--ipset")
		done
	fi
fi

# --- summary -------------------------------------------------------------------

if [ $ran -eq 0 ]; then
	echo "summary: nothing checked"
	exit 77
fi
line="summary:"
if [ $nf_total -gt 0 ]; then
	line="$line netfilter accepts $nf_ok of $nf_total;"
fi
if [ -n "$gufc_dir" ]; then
	line="$line gufc: $g_load_ok of $g_load_total load, $g_ref_ok of $g_ref_total refused as expected"
fi
echo "${line%;}"
exit $status
