// Building the page: every element through createElement, every text through text nodes. There is no path for
// markup: data from agents (hostnames, command lines, paths) is attacker-controlled (docs/console.md#security).
export type Child = Node | string | number | null | undefined | false;

export interface Attrs {
  [name: string]: string | number | boolean | null | undefined | Record<string, (ev: Event) => void>;
}

function apply(el: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "on") {
      for (const [type, fn] of Object.entries(value as Record<string, (ev: Event) => void>)) el.addEventListener(type, fn);
      continue;
    }
    // Event-handler attributes would be inline script (and CSP refuses them anyway): never set one.
    if (/^on/i.test(name) || name === "style") throw new Error(`attribute ${name} is not allowed`);
    el.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag) as SVGElementTagNameMap[K];
  apply(el, attrs);
  append(el, children);
  return el;
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A labelled form control: the label names the control for screen readers and clicks. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", { class: "hint" }, hint) : null);
}

/** A select of [value, label] options; without `value` the first option is chosen. */
export function select(name: string, options: Array<[string, string]>, value?: string): HTMLSelectElement {
  // `selected` (not only .value) so that a form reset returns to this choice.
  return h("select", { name }, ...options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

export function badge(text: string, kind: string = text): HTMLElement {
  return h("span", { class: `badge badge-${kind.replace(/[^a-z0-9_-]/gi, "")}` }, text);
}

/** A table from rows of cells; cells are nodes or text. */
export function table(headers: string[], rows: Child[][], caption?: string): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      caption ? h("caption", {}, caption) : null,
      h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
    ),
  );
}

export function notice(text: string, kind: "info" | "warn" | "error" | "success" = "info"): HTMLElement {
  return h("p", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/**
 * Runs `render`, which rebuilds what `container` holds, and gives the focus back to the element that had it if that
 * element is in `container` again (an element kept across renders, as a cancel button: a poll must not take a
 * keyboard user's focus away).
 */
export function keepingFocus(container: Element, render: () => void): void {
  const focused = document.activeElement;
  render();
  if (focused instanceof HTMLElement && focused !== document.body && container.contains(focused) && document.activeElement !== focused) focused.focus();
}

/**
 * Runs `act` on each click, one at a time: the button is disabled until it settles, so a double click (on "Load
 * more") does not ask for the same page twice. A failure is logged and the button can be clicked again.
 */
export function onClickOneAtATime(button: HTMLButtonElement, act: () => Promise<unknown>): void {
  button.addEventListener("click", () => {
    if (button.disabled) return;
    button.disabled = true;
    act()
      .catch((err: unknown) => console.error(err))
      .finally(() => (button.disabled = false));
  });
}

/** A button that asks once more in place before acting (no window.confirm). */
export function confirmButton(label: string, confirmLabel: string, act: () => Promise<void>, cls = "danger"): HTMLButtonElement {
  let armed = false;
  const b = h("button", { type: "button", class: cls });
  b.textContent = label;
  b.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      b.textContent = confirmLabel;
      b.classList.add("armed");
      setTimeout(() => {
        armed = false;
        b.textContent = label;
        b.classList.remove("armed");
      }, 4000);
      return;
    }
    b.disabled = true;
    void act().finally(() => {
      b.disabled = false;
    });
  });
  return b;
}
