# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The name sframectl serve gives a cache entry, for the tests that look
# at one, sourced.

# cache_entry FILE DIR: the entry in DIR for FILE's bytes, whole (no
# fill): the SHA-256 of the cache format (3), the generator version as
# sframectl.h has it, the fill flag and the SHA-256 of FILE.
cache_entry() {
	local digest gen

	digest=$(sha256sum "$1" | cut -c1-64 | sed 's/../\\x&/g')
	gen=$(awk '$2 == "SFRAME_GEN_VERSION" { print $3 }' \
		"$(dirname "${BASH_SOURCE[0]}")/../../sframectl/sframectl.h")
	echo "$2/$({
		printf 'SFRCACHE\0\3\0\0\0'
		printf "\\$(printf %03o "$gen")"
		printf '\0\0\0\0\0\0\0'
		printf "$digest"
	} | sha256sum | cut -c1-64).sidecar"
}
