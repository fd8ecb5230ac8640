// Programs that web servers, app runtimes and databases legitimately start through a shell on ordinary production
// hosts. A shell child of such a service whose commands are all among these is the service doing its job.
import type { SourceRef } from "./types.js";

export interface HelperBaseline {
  id: string;
  description: string;
  sources: readonly SourceRef[];
  /** Program basenames. */
  programs: readonly string[];
}

/** What a web server or app runtime starts by design (piped logs, PHP mail(), media conversion). */
export const WEB_HELPERS: HelperBaseline = {
  id: "web-server-helpers",
  description: "Piped-log programs started by Apache/nginx, the sendmail wrapper behind PHP mail(), and converters web apps shell out to.",
  sources: [
    { kind: "doc", name: "httpd.apache.org", url: "https://httpd.apache.org/docs/2.4/logs.html#piped", detail: "CustomLog with a |/usr/bin/rotatelogs pipe runs through /bin/sh" },
    { kind: "doc", name: "php.net", url: "https://www.php.net/manual/en/mail.configuration.php", detail: "sendmail_path, run via /bin/sh -c" },
    { kind: "doc", name: "docs.nextcloud.com", url: "https://docs.nextcloud.com/server/latest/admin_manual/configuration_files/previews_configuration.html", detail: "ffmpeg, LibreOffice, ImageMagick previews" },
  ],
  programs: [
    "rotatelogs", "cronolog", "logger", "multilog", "vlogger", "svlogd",
    "sendmail", "postdrop", "msmtp", "ssmtp", "exim", "exim4",
    "convert", "magick", "gm", "identify", "ffmpeg", "ffprobe", "soffice", "libreoffice", "wkhtmltopdf", "wkhtmltoimage",
    "pdftotext", "pdfinfo", "ghostscript", "gs", "git", "php", "exiftool",
  ],
};

/** What PostgreSQL runs from archive_command / restore_command (always through /bin/sh -c). */
export const POSTGRES_ARCHIVE: HelperBaseline = {
  id: "postgres-archive-command",
  description: "WAL archiving and restore tools PostgreSQL runs from archive_command/restore_command.",
  sources: [
    { kind: "doc", name: "postgresql.org", url: "https://www.postgresql.org/docs/current/continuous-archiving.html", detail: "archive_command = 'test ! -f /mnt/server/archivedir/%f && cp %p ...'" },
    { kind: "doc", name: "pgbackrest.org", url: "https://pgbackrest.org/user-guide.html", detail: "archive-push / archive-get" },
    { kind: "doc", name: "github.com", url: "https://github.com/wal-g/wal-g/blob/master/docs/PostgreSQL.md", detail: "wal-push / wal-fetch" },
    { kind: "doc", name: "docs.pgbarman.org", url: "https://docs.pgbarman.org/release/latest/", detail: "barman-wal-archive, barman-cloud-wal-archive" },
  ],
  programs: [
    "cp", "test", "[", "rsync", "scp", "gzip", "pigz", "lz4", "zstd", "xz", "mkdir", "true", "exit", "sync",
    "pgbackrest", "wal-g", "wal-e", "envdir", "barman-wal-archive", "barman-wal-restore", "barman-cloud-wal-archive",
    "barman-cloud-wal-restore", "pg_receivewal", "pg_archivecleanup", "aws", "gsutil", "azcopy",
  ],
};

/** MariaDB/MySQL Galera state transfers and the Erlang port program RabbitMQ uses for disk checks. */
export const DB_INTERNAL_HELPERS: HelperBaseline = {
  id: "database-internal-helpers",
  description: "Galera SST scripts started by mysqld/mariadbd and Erlang os:cmd ports (df) started by RabbitMQ.",
  sources: [
    { kind: "doc", name: "mariadb.com", url: "https://mariadb.com/kb/en/introduction-to-state-snapshot-transfers-ssts/", detail: "wsrep_sst_<method> scripts" },
    { kind: "doc", name: "erlang.org", url: "https://www.erlang.org/doc/apps/kernel/os.html#cmd/1", detail: "runs /bin/sh -s unix:cmd" },
    { kind: "doc", name: "rabbitmq.com", url: "https://www.rabbitmq.com/docs/disk-alarms", detail: "free disk space checks" },
  ],
  programs: [
    "wsrep_sst_rsync", "wsrep_sst_mariabackup", "wsrep_sst_xtrabackup", "wsrep_sst_xtrabackup-v2", "wsrep_sst_mysqldump",
    "wsrep_sst_common", "df", "inet_gethost", "erl_child_setup",
  ],
};
