// Which role a process plays, from its name and command line as osquery shows them (processes.name is the kernel's
// 15-character comm, processes.cmdline the argv): web servers, application runtimes, databases and brokers, and
// the children an intruder starts from them (shells, recon tools, downloaders). Shared by webshell-shell-spawn and
// service-spawned-shell.
import { basename, str } from "../rows.js";
import type { Row } from "../types.js";
import { simpleCommands } from "./command-lines.js";
import { NETCAT_LIKE, PIPE_TO_SHELL, SHELLS } from "./patterns.js";
import { InOrder } from "../in-order.js";

export interface Role {
  /** What the process is, for a summary ("nginx", "Tomcat", "PostgreSQL"). */
  label: string;
  /**
   * "server": a web server or PHP/Java container that never starts shells on its own except for known helpers.
   * "app": an application runtime (Node, Python WSGI, Ruby) whose code may legitimately shell out; only recon or
   * attack content counts.
   */
  tier: "server" | "app";
}

const lower = (row: Row, column: string): string => str(row, column).toLowerCase();

/** The Java web containers (Sigma's Linux webshell rule keys Tomcat and WebSphere on the java command line). */
const JAVA_WEB = /org\.apache\.catalina|catalina\.base|\btomcat|jboss|wildfly|\bjetty\b|org\.eclipse\.jetty|weblogic|websphere|glassfish|payara|\bresin\b|confluence|atlassian-jira|\bjira\b/;
/** CI controllers run arbitrary build steps from Java: never a web-shell parent. */
const JAVA_CI = /jenkins|hudson|teamcity|bamboo|gocd|go-server/;
/** Node, Python and Ruby processes that are developer tooling or CI, not a served application. */
const DEV_TOOLING = /\.vscode-server|\.cursor-server|\/\.nvm\/|actions-runner|\/_work\/|hostedtoolcache|gitlab-runner|\bnpm(?:-cli)?\b|\bnpx\b|\byarn\b|\bpnpm\b|\bjest\b|\bwebpack\b|\bvite\b|\btsc\b|\beslint\b|\bnext dev\b|typescript\/lib|language-?server/;

/** A web server or application runtime, or undefined. */
export function webRole(row: Row): Role | undefined {
  const name = basename(lower(row, "name") || lower(row, "path"));
  const exe = basename(lower(row, "path"));
  const cmd = lower(row, "cmdline");
  const is = (...names: string[]): boolean => names.some((n) => name === n || exe === n);
  if (is("nginx")) return { label: "nginx", tier: "server" };
  if (is("apache2", "httpd", "apache")) return { label: "Apache httpd", tier: "server" };
  if (is("lighttpd", "caddy", "openresty", "litespeed", "lshttpd", "h2o")) return { label: name, tier: "server" };
  if (/^php-fpm/.test(name) || /^php-fpm/.test(exe) || /^php-fpm: (?:pool|master)/.test(cmd)) return { label: "php-fpm", tier: "server" };
  if (/^php(?:[0-9.]*)?-cgi$/.test(name) || /^lsphp/.test(name)) return { label: "PHP CGI", tier: "server" };
  if (/^php[0-9.]*$/.test(name) && /\s-s\s+\S+:\d+/.test(cmd)) return { label: "PHP built-in server", tier: "server" };
  if ((is("java") || /\/bin\/java\s/.test(cmd)) && JAVA_WEB.test(cmd) && !JAVA_CI.test(cmd)) return { label: "Java web container (Tomcat/JBoss/Jetty)", tier: "server" };
  if (DEV_TOOLING.test(cmd) || DEV_TOOLING.test(lower(row, "path"))) return undefined;
  if (is("node", "nodejs", "bun", "deno") && !/\s(?:-e|--eval|-p)\s/.test(cmd)) return { label: "Node.js", tier: "app" };
  if (/\b(?:gunicorn|uwsgi|uvicorn|daphne|hypercorn|waitress-serve|mod_wsgi)\b/.test(`${name} ${cmd}`)) return { label: "Python WSGI/ASGI server", tier: "app" };
  if (/\b(?:puma|unicorn|passenger|thin|rails server)\b/.test(`${name} ${cmd}`)) return { label: "Ruby app server", tier: "app" };
  return undefined;
}

/** A database, cache or message broker (an RCE target whose process should never start shells). */
export function dataServiceRole(row: Row): string | undefined {
  const name = basename(lower(row, "name") || lower(row, "path"));
  const cmd = lower(row, "cmdline");
  if (name === "postgres" || name === "postmaster" || /^postgres: /.test(cmd)) return "PostgreSQL";
  if (name === "mysqld" || name === "mariadbd") return name === "mysqld" ? "MySQL" : "MariaDB";
  if (name === "redis-server" || /^redis-server\b|\/redis-server\s/.test(cmd)) return "Redis";
  if (name === "mongod" || name === "mongos") return "MongoDB";
  if (name === "memcached") return "memcached";
  if (name === "java" || /\/bin\/java\s/.test(cmd)) {
    if (/org\.elasticsearch\.|org\.opensearch\./.test(cmd)) return "Elasticsearch/OpenSearch";
    if (/activemq/.test(cmd)) return "ActiveMQ";
    if (/\bkafka\.kafka\b/.test(cmd)) return "Kafka";
    if (/org\.apache\.zookeeper/.test(cmd)) return "ZooKeeper";
    if (/org\.apache\.cassandra/.test(cmd)) return "Cassandra";
    if (/\bsolr\b/.test(cmd)) return "Solr";
    return undefined;
  }
  if (/^beam(?:\.smp)?$/.test(name) && /\brabbit\b|rabbitmq/.test(cmd)) return "RabbitMQ";
  if (/^beam(?:\.smp)?$/.test(name) && /couchdb/.test(cmd)) return "CouchDB";
  return undefined;
}

/** Host reconnaissance programs an intruder runs first (Sigma "Linux Webshell Indicators" children, plus a few). */
export const RECON_PROGRAMS: ReadonlySet<string> = new Set([
  "id", "whoami", "uname", "hostname", "ifconfig", "ip", "netstat", "ss", "route", "arp", "iptables", "crontab", "w", "who",
  "pwd", "groups", "getent", "lsb_release", "hostnamectl", "ps", "lsof", "printenv",
]);
export const DOWNLOADERS: ReadonlySet<string> = new Set(["curl", "wget", "tftp", "ftp", "fetch", "lwp-download"]);
const INTERPRETER = /^(?:python[0-9.]*|perl|ruby|php[0-9.]*|lua|node)$/;

/** Attack content in a command a service's child runs (reverse shells, download-and-run, credential files). */
const ATTACK_CONTENT = /\/dev\/(?:tcp|udp)\/|\b(?:ba)?sh\s+-i\b|socket\.socket|pty\.spawn|\bbase64\s+(?:-d|--decode)|\/etc\/(?:passwd|shadow)\b|chmod\s+(?:\+x|(?=[0-7]*7)[0-7]+)\s+\/(?:tmp|var\/tmp|dev\/shm)\/|\bmkfifo\b/i;
/** netcat with -e or -c, mknod of a pipe: a program, then its flag later in the line (parts in order: linear). */
const ATTACK_LATER_IN_LINE = new InOrder(/\n/, [/\b(?:nc|ncat|netcat)\b/i, /\s-[a-z]*[ec]\s/i], [/\bmknod\b/i, /\sp\b/i]);

export interface ChildVerdict {
  /** Why the child looks like an intruder's command ("" when it does not). */
  why: string;
  /** Reverse shell, download piped to a shell, credential file: conclusive on its own. */
  strong: boolean;
  /** The programs it runs (basenames). */
  programs: string[];
}

/** What a child process of a service does, from its own name/command line and its children's command lines. */
export function judgeChild(child: Row, grandchildren: readonly Row[]): ChildVerdict {
  const name = basename(lower(child, "name") || lower(child, "path"));
  const texts = [str(child, "cmdline"), ...grandchildren.map((g) => str(g, "cmdline"))];
  const programs = [name, ...grandchildren.map((g) => basename(lower(g, "name") || lower(g, "path")))];
  for (const t of texts) programs.push(...simpleCommands(t).map((c) => c.program));
  const text = texts.join("\n");
  const unique = [...new Set(programs.filter((p) => p !== ""))];
  if (ATTACK_CONTENT.test(text) || ATTACK_LATER_IN_LINE.test(text) || PIPE_TO_SHELL.test(text)) return { why: "runs reverse-shell, download-and-run or credential-file commands", strong: true, programs: unique };
  const recon = unique.filter((p) => RECON_PROGRAMS.has(p));
  if (recon.length > 0) return { why: `runs reconnaissance (${recon.join(", ")})`, strong: false, programs: unique };
  const net = unique.filter((p) => DOWNLOADERS.has(p) || NETCAT_LIKE.has(p));
  if (net.length > 0) return { why: `runs ${net.join(", ")}`, strong: false, programs: unique };
  if (INTERPRETER.test(name) && /\s-[ce]\s/.test(` ${str(child, "cmdline")} `)) return { why: "runs inline interpreter code", strong: false, programs: unique };
  const shell = SHELLS.has(name);
  if (shell && !/\s-c\s|\s-s\s/.test(` ${str(child, "cmdline")} `) && !/\.(?:sh|cgi)\b/.test(str(child, "cmdline"))) return { why: "is an interactive shell", strong: false, programs: unique };
  return { why: "", strong: false, programs: unique };
}

/** Whether every program a child runs is in a baseline list (shells and shell builtins do not count). */
export function onlyHelpers(programs: readonly string[], helpers: readonly string[]): boolean {
  const ignore = new Set([...SHELLS, "exec", "cd", "echo", "true", "test", "[", "exit", "printf", "sleep"]);
  const used = programs.filter((p) => !ignore.has(p) && !/^-/.test(p));
  return used.length > 0 && used.every((p) => helpers.includes(p));
}

/**
 * Python's multiprocessing starting a worker or its resource tracker (the "spawn" start method, the default on macOS
 * and asked for by uvicorn, torch and others): the parent's own interpreter run with the module's fixed bootstrap
 * line (CPython Lib/multiprocessing/spawn.py get_command_line, resource_tracker.py), nothing else on it.
 */
export function multiprocessingWorker(child: Row, parent: Row): boolean {
  if (str(child, "path") === "" || str(child, "path") !== str(parent, "path")) return false;
  const code = /^\S*python[\d.]*\s+(?:-[A-Za-z]+\s+)*-c\s+(.*)$/.exec(str(child, "cmdline").trim())?.[1] ?? "";
  return (
    /^["']?from multiprocessing\.spawn import spawn_main; spawn_main\((?:tracker_fd=\d+, )?pipe_handle=\d+\)["']? --multiprocessing-fork$/.test(code) ||
    /^["']?from multiprocessing\.resource_tracker import main;\s?main\(\d+\)["']?$/.test(code)
  );
}
