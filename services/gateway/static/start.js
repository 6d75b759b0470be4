// The start page: your name, play solo (with a level), resume a solo match, create a room with
// house rules and a seat layout, or join through an invite link.
import { api, store, MAX_NAME } from "./api.js";
import { h, fill } from "./cards.js";
import { t } from "./i18n.js";
import { errorText, navigate, toast } from "./ui.js";

const LEVELS = ["easy", "medium", "hard", "expert"];

function field(id, label, control, hint) {
  control.id = id;
  return h("div.field", {}, h("label", { for: id, text: label }), control,
    hint ? h("p.hint", { id: `${id}-hint`, text: hint }) : null);
}

function select(options, value) {
  const s = h("select");
  for (const [v, label] of options) s.append(h("option", { value: v, text: label }));
  s.value = value;
  return s;
}

function check(id, label, desc) {
  const box = h("input", { type: "checkbox", id, name: id, "aria-describedby": `${id}-desc` });
  return h("div.check", {}, box, h("label", { for: id }, h("strong", { text: label }),
    h("span.desc", { id: `${id}-desc`, text: " " + desc })));
}

export function mount(root) {
  document.title = `Hokm — ${t("start.title")}`;
  const busy = (btn, on) => { btn.disabled = on; btn.setAttribute("aria-busy", on ? "true" : "false"); };

  const nameInput = h("input", { type: "text", autocomplete: "nickname", maxlength: String(MAX_NAME), value: store.name(), placeholder: t("start.name_placeholder") });
  nameInput.addEventListener("change", () => store.setName(nameInput.value.trim()));
  const name = () => {
    const n = nameInput.value.trim() || t("start.default_name");
    store.setName(nameInput.value.trim());
    return n;
  };

  // ---- solo ----
  const levelGroup = h("fieldset.levels", {}, h("legend", { text: t("start.level") }),
    ...LEVELS.map((lv) => h("label.radio", {},
      h("input", { type: "radio", name: "level", value: lv, checked: lv === "medium" }),
      h("span", { text: t(`level.${lv}`) }))));
  const soloBtn = h("button.primary", { type: "button", text: t("start.play_solo") });
  soloBtn.addEventListener("click", async () => {
    const level = levelGroup.querySelector("input:checked").value;
    busy(soloBtn, true);
    try {
      const r = await api.create({ players: 4, seats: ["human", `bot:${level}`, `bot:${level}`, `bot:${level}`], rules: { target: 7 }, name: name() });
      store.setToken(r.match_id, r.token);
      store.setSolo(r.match_id);
      navigate(`/m/${r.match_id}`);
    } catch (e) { toast(errorText(e)); busy(soloBtn, false); }
  });
  const resume = h("div.resume", { hidden: true });

  // ---- room ----
  const target = select([["7", t("rules.target_7")], ["10", t("rules.target_10")], ["2x7", t("rules.target_2x7")]], "7");
  const deal = select([["5-4-4", "5-4-4"], ["5-3-3-2", "5-3-3-2"]], "5-4-4");
  const teams = select([["ace_draw", t("rules.teams_ace_draw")], ["as_seated", t("rules.teams_as_seated")]], "ace_draw");
  const seatSel = [1, 2, 3].map((i) => select([["human", t("start.seat_human")],
    ...LEVELS.map((lv) => [`bot:${lv}`, t("start.seat_bot", { level: t(`level.${lv}`) })])], i === 2 ? "human" : "bot:medium"));
  const flags = ["must_trump", "satat", "bavney", "double_sar"];
  const form = h("form.room", { novalidate: true },
    h("fieldset", {}, h("legend", { text: t("start.house_rules") }),
      field("r-target", t("rules.target"), target),
      field("r-deal", t("rules.deal"), deal, t("rules.deal_desc")),
      field("r-teams", t("rules.teams"), teams, t("rules.teams_desc")),
      ...flags.map((f) => check(`r-${f}`, t(`rules.${f}`), t(`rules.${f}_desc`)))),
    h("fieldset", {}, h("legend", { text: t("start.seats") }),
      h("p.hint", { text: t("start.seats_hint") }),
      h("div.field", {}, h("span.label", { text: t("start.seat_n", { n: 1 }) }), h("span.you", { text: t("start.seat_you") })),
      ...seatSel.map((s, i) => field(`r-seat${i + 1}`, t("start.seat_n", { n: i + 2 }), s))),
    h("button.primary", { type: "submit", text: t("start.create_room") }));
  // bavney and double_sar cannot be combined (400 bad_rules): keep the form consistent
  const bav = form.querySelector("#r-bavney"), dsar = form.querySelector("#r-double_sar");
  bav.addEventListener("change", () => { if (bav.checked) dsar.checked = false; });
  dsar.addEventListener("change", () => { if (dsar.checked) bav.checked = false; });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const btn = form.querySelector("button[type=submit]");
    const rules = { target: target.value === "2x7" ? "2x7" : Number(target.value), deal: deal.value, teams: teams.value };
    for (const f of flags) rules[f] = form.querySelector(`#r-${f}`).checked;
    const seats = ["human", ...seatSel.map((s) => s.value)];
    busy(btn, true);
    try {
      const r = await api.create({ players: 4, seats, rules, name: name() });
      store.setToken(r.match_id, r.token);
      navigate(`/m/${r.match_id}`);
    } catch (e) { toast(errorText(e)); busy(btn, false); }
  });

  // ---- join ----
  const linkInput = h("input", { type: "text", id: "join-link", inputmode: "url", autocomplete: "off", placeholder: t("start.join_placeholder") });
  const joinForm = h("form.join", {}, field("join-link", t("start.join_label"), linkInput),
    h("button", { type: "submit", text: t("start.join_button") }));
  joinForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = linkInput.value.trim();
    const m = v.match(/(?:\/m\/)?([\w-]{4,})\/?$/);
    if (!m) { toast(t("start.join_invalid")); linkInput.focus(); return; }
    navigate(`/m/${m[1]}`);
  });

  root.append(h("section.page.start", {},
    h("div.hero", {}, h("h1", { text: t("start.title") }), h("p.lead", { text: t("start.lead") })),
    h("div.panel", {}, field("player-name", t("start.your_name"), nameInput, t("start.name_hint"))),
    h("div.grid2", {},
      h("section.panel", { "aria-labelledby": "solo-h" }, h("h2", { id: "solo-h", text: t("start.solo_title") }),
        h("p", { text: t("start.solo_desc") }), resume, levelGroup, soloBtn),
      h("section.panel", { "aria-labelledby": "join-h" }, h("h2", { id: "join-h", text: t("start.join_title") }),
        h("p", { text: t("start.join_desc") }), joinForm,
        h("p", {}, h("a", { href: "/how-to-play", "data-link": true, text: t("start.learn") })))),
    h("section.panel", { "aria-labelledby": "room-h" }, h("h2", { id: "room-h", text: t("start.room_title") }),
      h("p", { text: t("start.room_desc") }), form)));

  // offer to resume the last solo match if it is still going
  const soloId = store.solo();
  if (soloId && store.token(soloId)) {
    api.summary(soloId).then((s) => {
      if (s.phase === "match_over") { store.dropSolo(); return; }
      const score = (s.score || [0, 0]).join("–");
      fill(resume, h("a.button.primary", { href: `/m/${soloId}`, "data-link": true, id: "resume-solo" },
        t("start.resume_solo"), h("span.sub", { text: " " + t("start.resume_score", { score }) })));
      resume.hidden = false;
    }).catch((e) => { if (e.status === 404) store.dropSolo(); });
  } else if (soloId) store.dropSolo();

  return { unmount() {} };
}
