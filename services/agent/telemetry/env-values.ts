// Which environment values leave the host. Environments hold secrets (cloud keys, database passwords, tokens, and
// on an Inquest host the services' own INQUEST_MASTER_KEY), and what the agent reports is stored centrally: in the
// snapshots stream, kept until the next snapshot replaces it, and in findings that cite the row. So the agent sends
// every variable's name but only the values detections read or that tell where a process came from; every other
// value is withheld (docs/telemetry.md#environment). Credentials inside a kept value's URLs are withheld too.

/** Variables whose values are sent: loader and interpreter hooks, shell history settings, paths, proxies, origin. */
const KEPT = new RegExp(
  "^(?:" +
    [
      "LD_[A-Z0-9_]+", // ld-preload: LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH
      "HIST[A-Z]*", // history-tampering: HISTFILE, HISTSIZE, HISTFILESIZE, HISTCONTROL, HISTIGNORE
      "SAVEHIST",
      "PROMPT_COMMAND",
      "BASH_ENV",
      "ENV",
      "PATH",
      "SHELL",
      "HOME",
      "USER",
      "LOGNAME",
      "PWD",
      "OLDPWD",
      "TMPDIR",
      "TERM",
      "LANG",
      "LANGUAGE",
      "LC_[A-Z]+",
      "TZ",
      "(?:HTTPS?|FTP|ALL|NO)_PROXY",
      "(?:https?|ftp|all|no)_proxy",
      "PYTHONPATH",
      "PYTHONSTARTUP",
      "PYTHONHOME",
      "PERL5LIB",
      "PERL5OPT",
      "PERLLIB",
      "RUBYLIB",
      "RUBYOPT",
      "NODE_OPTIONS",
      "NODE_PATH",
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
      "JDK_JAVA_OPTIONS",
      "GCONV_PATH",
      "SSH_CLIENT",
      "SSH_CONNECTION",
      "SSH_TTY",
      "SUDO_USER",
      "SUDO_UID",
      "SUDO_GID",
      "SUDO_COMMAND",
      "DISPLAY",
      "container",
      "npm_lifecycle_event", // install-script-payload: which of a package's scripts npm is running
      "npm_package_name",
    ].join("|") +
    ")$",
);

/** What a withheld value reads as (an empty value stays empty: "set but empty" is itself a signal). */
export const WITHHELD = "<withheld>";

/**
 * `scheme://user:password@host` with the password withheld; the user and host stay (they are where it points). Read
 * from each `://` once: as one expression, the scheme `[a-z][a-z0-9+.-]*` was tried from every letter of a long run
 * of them (quadratic in a value of 4 KiB of letters; a ReDoS audit). Same result as
 * `value.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):[^\s/@]*@/gi, "$1:<withheld>@")`.
 */
export function withoutUrlPasswords(value: string): string {
  let out = "";
  let from = 0; // where the text not yet copied starts (a match never starts before it)
  for (let sep = value.indexOf("://"); sep >= 0; sep = value.indexOf("://", sep + 1)) {
    // The scheme: the leftmost letter, not before `from`, from which only scheme characters run up to "://".
    let start = sep;
    for (let i = sep - 1; i >= from && SCHEME_CHAR.test(value[i] ?? ""); i--) if (LETTER.test(value[i] ?? "")) start = i;
    if (start === sep) continue;
    const user = USERINFO.exec(value.slice(sep + 3));
    if (user === null) continue;
    const userEnd = sep + 3 + (user[1] ?? "").length;
    out += `${value.slice(from, userEnd)}:${WITHHELD}@`;
    from = sep + 3 + user[0].length;
    sep = from - 1;
  }
  return out + value.slice(from);
}

const SCHEME_CHAR = /^[a-z0-9+.-]$/i;
const LETTER = /^[a-z]$/i;
/** After `://`: the user (no blank, `/`, `@` or `:`), `:`, the password (no blank, `/` or `@`), `@`. */
const USERINFO = /^([^\s/@:]*):[^\s/@]*@/;

/** The value sent for variable `key`. */
export function reportedEnvValue(key: string, value: string): string {
  if (value === "") return "";
  return KEPT.test(key) ? withoutUrlPasswords(value) : WITHHELD;
}

/** A `KEY=VALUE` entry (Docker's Config.Env) with its value as reportedEnvValue sends it. */
export function reportedEnvEntry(entry: string): string {
  const eq = entry.indexOf("=");
  return eq === -1 ? entry : `${entry.slice(0, eq)}=${reportedEnvValue(entry.slice(0, eq), entry.slice(eq + 1))}`;
}
