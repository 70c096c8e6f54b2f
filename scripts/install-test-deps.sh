#!/usr/bin/env bash
# Installs what docbench's tests need when it is missing: Debian's PostgreSQL
# (for testutil.Postgres(t, "debian")), MariaDB, Java and Maven for the
# MongoDB wire peer, and Chromium for the report's browser test. Idempotent and quiet when everything is present; needs root
# only when something must be installed.
#
#   scripts/install-test-deps.sh          install what is missing
#   scripts/install-test-deps.sh --warm   also download the embedded
#                                         PostgreSQL 18 binaries and build the
#                                         MySQL 8 peer (tools/mysql-peer) now
#                                         (the tests otherwise do it on first
#                                         use)
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT

apt_updated=no
apt_update() {
	[[ $apt_updated == yes ]] && return
	apt-get update -q </dev/null >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
	apt_updated=yes
}

# apt_install PKG…: installs, running apt-get update first when there are no
# package lists, or once more when the install fails on stale lists.
apt_install() {
	if [[ $EUID -ne 0 ]]; then
		echo "install-test-deps: missing $*; run this script as root" >&2
		exit 1
	fi
	echo "install-test-deps: installing $*…"
	if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
		apt_update
	fi
	if ! apt-get install -y -q --no-install-recommends "$@" </dev/null >>"$log" 2>&1; then
		apt_update
		apt-get install -y -q --no-install-recommends "$@" </dev/null >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
	fi
}

# stop_default_clusters stops the clusters the package created and started
# (tests start private clusters of their own) and keeps them from starting at
# boot. pg_ctlcluster works with and without systemd.
stop_default_clusters() {
	local ver name rest
	while read -r ver name rest; do
		[[ -n $ver ]] || continue
		if [[ $rest == *online* ]]; then
			pg_ctlcluster "$ver" "$name" stop >>"$log" 2>&1 || true
		fi
		if [[ -f /etc/postgresql/$ver/$name/start.conf ]]; then
			echo manual >"/etc/postgresql/$ver/$name/start.conf"
		fi
	done < <(pg_lsclusters -h 2>/dev/null || true)
}

if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
	apt_install postgresql
	stop_default_clusters
fi

# jsquery for the key-at-any-depth comparison (pg.descendantop=jsquery) on
# Debian's PostgreSQL 15; the embedded PostgreSQL 18 has no jsquery.
if [[ -d /usr/share/postgresql/15/extension && ! -f /usr/share/postgresql/15/extension/jsquery.control ]]; then
	apt_install postgresql-15-jsquery
fi

# MariaDB: tests start private servers of their own (server.StartMariaDB);
# the one the package starts is stopped and kept from starting at boot.
if ! command -v mariadbd >/dev/null 2>&1 && [[ ! -x /usr/sbin/mariadbd ]]; then
	apt_install mariadb-server
	if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
		systemctl disable --now mariadb >>"$log" 2>&1 || true
	else
		service mariadb stop >>"$log" 2>&1 || true
	fi
fi

# Java and Maven build the MongoDB wire peer (tools/mongo-peer) the MongoDB
# backend's tests talk to; this kind of machine ships them, others may not.
if ! command -v java >/dev/null 2>&1; then
	apt_install default-jre-headless
fi
if ! command -v mvn >/dev/null 2>&1; then
	apt_install maven
fi

# Chromium: internal/report's TestHTMLInBrowser opens report.html in headless
# Chromium (Debian's package, from main). Without recommends there are no
# fonts for it; fonts-liberation gives it the family the report uses.
if ! command -v chromium >/dev/null 2>&1 && [[ ! -x /usr/bin/chromium ]]; then
	apt_install chromium fonts-liberation
fi

if [[ ${1:-} == --warm ]]; then
	cd "$(dirname "$0")/.."
	go test -count=1 -run '^(TestEmbeddedPostgres|TestMySQLPeer)$' ./internal/server/ ./internal/server/servertest/ >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
fi
