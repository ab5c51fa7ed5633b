#!/bin/sh
# Installs the Debian packages the tests start on loopback (redis-server, nginx, Chromium and its driver) and the
# openssl command (the HTTPS provider's test certificate), once.
# Why a script in the test command: a fresh machine has only Python, pip, gcc and apt, and a test that needs a
# missing server must fail loudly, never skip. Does nothing when every binary is already there.
set -eu
need=""
command -v redis-server >/dev/null 2>&1 || need="$need redis-server"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need="$need nginx"
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v chromedriver >/dev/null 2>&1 || need="$need chromium-driver"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
fc-list 2>/dev/null | grep -qi dejavu || need="$need fonts-dejavu-core"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
echo "installing Debian packages for the tests:$need" >&2
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
