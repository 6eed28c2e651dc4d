/// The studio's stylesheet and script, served from the binary: no request leaves the machine.
enum StudioAssets {
    static let css = """
        :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fbfbfd; --muted: #6e6e73; --line: #d2d2d7; --accent: #0a58ca;
          --panel: #f2f2f5; --danger: #b42318; --ok: #067647; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 15px; }
        @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --bg: #161617; --muted: #a1a1a6; --line: #3a3a3c; --accent: #6ea8fe;
          --panel: #222224; --danger: #ff6b5e; --ok: #5cd68a; } }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5em; }
        .skip:focus { left: .5em; top: .4em; z-index: 10; padding: .3em .8em; border-radius: .35em; }
        header { display: flex; flex-wrap: wrap; gap: .4em 1em; align-items: baseline; padding: .6em 1.2em; border-bottom: 1px solid var(--line); background: var(--panel); }
        header .brand { font-weight: 700; }
        header .store { color: var(--muted); font-family: ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; max-width: 30em; white-space: nowrap; }
        header .mode { font-size: .8em; padding: .1em .6em; border-radius: 1em; border: 1px solid var(--line); }
        header .mode.editing { color: var(--danger); border-color: var(--danger); }
        header nav { margin-left: auto; display: flex; gap: 1em; }
        header nav a[aria-current], nav.entities a[aria-current] { font-weight: 700; text-decoration: none; color: var(--fg); }
        .layout { display: grid; grid-template-columns: minmax(10em, 14em) 1fr; }
        nav.entities { border-right: 1px solid var(--line); padding: .4em 1em; min-height: calc(100vh - 3em); }
        nav.entities h2 { font-size: .8em; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
        nav.entities ul { list-style: none; margin: 0; padding: 0; }
        nav.entities li { margin: .2em 0; }
        main { padding: .4em 1.6em 3em; min-width: 0; }
        main:focus { outline: none; }
        h1 { font-size: 1.5em; margin: .5em 0; }
        h2 small, th small, label small, dt small { color: var(--muted); font-weight: 400; margin-left: .4em; font-size: .8em; }
        th small { display: block; margin: 0; }
        .row-label { color: var(--muted); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        td.action form { margin: 0; }
        form.link-rows { display: flex; flex-wrap: wrap; align-items: center; gap: .4em .8em; margin: .6em 0; }
        .scroll { overflow-x: auto; }
        table.rows { border-collapse: collapse; margin: .6em 0; font-size: .93em; }
        table.rows caption { text-align: left; color: var(--muted); padding: .2em 0; }
        table.rows th, table.rows td { border-bottom: 1px solid var(--line); padding: .3em .7em; text-align: left; vertical-align: top; max-width: 28em; overflow-wrap: break-word; }
        table.rows thead th { position: sticky; top: 0; background: var(--bg); white-space: nowrap; }
        table.rows thead th a { text-decoration: none; }
        table.rows thead th a:hover, table.rows thead th a:focus-visible { text-decoration: underline; }
        table.rows .number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        table.rows td a, table.rows tbody th a { white-space: nowrap; }
        .related table.rows caption { position: absolute; left: -9999px; }
        table.rows tr.changed td, table.rows tr.changed th { animation: flash 1.5s ease-out; }
        @keyframes flash { from { background: color-mix(in srgb, var(--accent) 25%, transparent); } to { background: transparent; } }
        .nil { color: var(--muted); font-style: italic; }
        .empty { color: var(--muted); }
        dl.facts, dl.values { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; }
        dl dt { font-weight: 600; }
        dl dd { margin: 0; overflow-wrap: anywhere; }
        form.filter { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: end; padding: .7em; background: var(--panel); border-radius: .5em; }
        form.filter .predicate { flex: 1 1 24em; display: flex; flex-direction: column; }
        fieldset.builder { border: 1px solid var(--line); border-radius: .4em; display: flex; flex-wrap: wrap; gap: .3em .5em; align-items: center; }
        input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: .35em; padding: .3em .5em; }
        textarea { width: 100%; font-family: ui-monospace, monospace; }
        input[type=text] { min-width: 12em; }
        button, .button { cursor: pointer; background: var(--accent); color: #fff; border: none; padding: .4em 1em; border-radius: .35em; text-decoration: none; display: inline-block; }
        button.danger, a.danger { color: var(--danger); }
        button.danger { background: var(--danger); color: #fff; }
        td.action button { font-size: .85em; padding: .2em .6em; background: transparent; color: var(--danger); border: 1px solid var(--line); }
        .actions { margin: .8em 0; display: flex; flex-wrap: wrap; gap: .6em 1.2em; align-items: center; }
        form.filter > a, form.filter > button { align-self: center; }
        .fields { display: grid; gap: .6em; max-width: 48em; }
        .field { display: grid; grid-template-columns: 14em 1fr; align-items: center; gap: .2em 1em; }
        .field > .label, .field > label:first-child { font-weight: 600; }
        .field .control { display: flex; flex-wrap: wrap; align-items: center; gap: .3em .8em; }
        .field .control > input[type=text], .field .control > input[type=number], .field .control > select, .field .control > textarea { flex: 1 1 16em; }
        .field label.nil { font-style: normal; white-space: nowrap; }
        .fixed { font-family: ui-monospace, monospace; }
        pre.schema, pre.plan { background: var(--panel); padding: .8em; border-radius: .5em; overflow-x: auto; }
        figure.diagram { margin: 1em 0; overflow: auto; background: #fff; border: 1px solid var(--line); border-radius: .5em; }
        figure.diagram svg { display: block; max-width: none; }
        .error, .plan { padding: .6em .8em; border-radius: .4em; }
        .error { background: color-mix(in srgb, var(--danger) 12%, transparent); color: var(--danger); }
        p.plan { background: var(--panel); font-weight: 600; }
        ol.history { padding-left: 0; list-style: none; }
        ol.history > li { border-bottom: 1px solid var(--line); padding: .4em 0; }
        ol.history p { margin: .2em 0; }
        nav.pages { display: flex; gap: 1.2em; margin: .6em 0; }
        #notice { position: fixed; bottom: 1em; right: 1em; max-width: 30em; }
        #notice:not(:empty) { background: var(--panel); border: 1px solid var(--line); padding: .6em 1em; border-radius: .5em; }
        @media (max-width: 700px) { .layout { grid-template-columns: 1fr; } nav.entities { min-height: 0; border-right: none; } .field { grid-template-columns: 1fr; } }
        """

    /// Live updates: listens to the store's saves (Server-Sent Events) and, when one changes what the
    /// page shows, reads the page again and swaps its `#live` content, unless a form on it is being
    /// edited (then it says so instead of losing the person's typing).
    static let javaScript = """
        "use strict";
        (() => {
          const events = document.querySelector('meta[name="stowage-events"]');
          const live = document.getElementById("live");
          const notice = document.getElementById("notice");
          if (!events || !live || !window.EventSource) return;
          const watching = (document.body.dataset.watching || "").split(" ").filter(Boolean);
          let dirty = false;
          live.addEventListener("input", () => { dirty = true; });
          let pending = false, running = false;
          const say = (text) => { notice.textContent = text; if (text) setTimeout(() => { if (notice.textContent === text) notice.textContent = ""; }, 4000); };
          async function refresh() {
            if (running) { pending = true; return; }
            running = true;
            try {
              const response = await fetch(location.href, { headers: { "Accept": "text/html" }, credentials: "same-origin" });
              if (!response.ok) return;
              const page = new DOMParser().parseFromString(await response.text(), "text/html");
              const next = page.getElementById("live");
              if (!next) return;
              const before = new Set([...live.querySelectorAll("tbody tr")].map((row) => row.textContent));
              const focused = document.activeElement && document.activeElement.id;
              live.replaceChildren(...next.childNodes);
              for (const row of live.querySelectorAll("tbody tr")) if (!before.has(row.textContent)) row.classList.add("changed");
              if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
              say("Updated: the store changed.");
            } finally {
              running = false;
              if (pending) { pending = false; refresh(); }
            }
          }
          const source = new EventSource(events.content);
          source.addEventListener("change", (event) => {
            let change;
            try { change = JSON.parse(event.data); } catch { return; }
            const touches = !change.entities || watching.length === 0 || change.entities.some((name) => watching.includes(name));
            if (!touches) return;
            if (dirty) { say("The store changed while you were editing: reload to see it."); return; }
            refresh();
          });
        })();
        """
}
