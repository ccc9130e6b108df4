"""The service's page at ``/``: ask a question of a served corpus and see the answer, the retrieved synthetic
texts with their scores and the corpus's guarantee, with a link to its publishable corpus card. A service
started with ``--retrieval-only`` gets the retrieved texts (``POST /v1/retrieve``) and no answer.

One HTML document with inline CSS and script and no external asset. It calls the same routes as any client
(``GET /v1/corpora``, ``GET /v1/corpora/{name}/report``, ``POST /v1/query`` or ``/v1/retrieve``,
``GET /v1/corpora/{name}/card``),
sending the API key typed into the page when the service asks for one. Everything the service returns is
written with ``textContent``, never parsed as HTML.
"""

PAGE_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
            "img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
"""The page's Content-Security-Policy: its own inline script and style, requests to the service only."""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dpsynrag: ask a synthetic corpus</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:50rem;margin:0 auto;padding:1rem;
color:#1b1b1b;line-height:1.45}
h1{font-size:1.4rem}label{display:block;font-weight:600;margin-top:.7rem}
textarea,select,input{width:100%;box-sizing:border-box;font:inherit;padding:.4rem}
button{margin-top:.7rem;font:inherit;padding:.45rem 1.2rem;cursor:pointer}
:focus-visible{outline:3px solid #3f6fb5;outline-offset:2px}
#guarantee{background:#e7f4ea;border:1px solid #2e7d32;padding:.5rem .8rem;border-radius:.3rem;margin:.7rem 0}
#answer{font-size:1.1rem;background:#f3f6fb;padding:.6rem .8rem;border-radius:.3rem;min-height:1.5rem}
#error{color:#b00020}ol li{margin:.35rem 0}.score{font-variant-numeric:tabular-nums;color:#555}
</style></head><body>
<h1>Ask a differentially private synthetic corpus</h1>
<p>Answers come from the synthetic texts only: every question is post-processing and costs no privacy budget.</p>
<form id="ask">
<label for="corpus">Corpus</label><select id="corpus" name="corpus"></select>
<div id="guarantee" aria-live="polite">Loading the corpus's guarantee…</div>
<p><a id="card" href="#">Open the corpus card (publishable report)</a></p>
<label for="question">Question</label>
<textarea id="question" name="question" rows="3" required></textarea>
<label for="key">API key (only if the service asks for one)</label>
<input id="key" name="key" type="password" autocomplete="off">
<button id="submit" type="submit">Answer</button>
<p id="mode"></p>
</form>
<p id="error" role="alert"></p>
<h2>Answer</h2><div id="answer" aria-live="polite"></div>
<h2>Retrieved synthetic texts</h2><ol id="contexts"></ol>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const served = {};  // name -> the listing's facts (answer_model null: the service retrieves only)
const answers = () => { const c = served[$("corpus").value]; return !c || c.answer_model !== null; };
function headers(json) {
  const h = {};
  if (json) h["Content-Type"] = "application/json";
  const key = $("key").value.trim();
  if (key) h["Authorization"] = "Bearer " + key;
  return h;
}
async function call(path, body) {
  const r = await fetch(path, body === undefined ? {headers: headers(false)}
                              : {method: "POST", headers: headers(true), body: JSON.stringify(body)});
  if (!r.ok) {
    let msg = r.status + " " + r.statusText;
    try { const d = await r.json(); msg += ": " + (typeof d.detail === "string" ? d.detail : JSON.stringify(d.detail)); } catch (e) {}
    throw new Error(msg);
  }
  return r;
}
function fmt(x, digits) { return (typeof x === "number") ? Number(x.toPrecision(digits)).toString() : "–"; }
async function loadGuarantee() {
  const name = $("corpus").value;
  if (!name) return;
  $("submit").textContent = answers() ? "Answer" : "Retrieve";
  $("mode").textContent = answers() ? "" : "This service retrieves only (--retrieval-only): it shows the synthetic "
                                          + "texts closest to the question and generates no answer.";
  try {
    const rep = await (await call("/v1/corpora/" + encodeURIComponent(name) + "/report")).json();
    const g = $("guarantee");
    g.textContent = "";
    const strong = document.createElement("strong");
    strong.id = "guarantee-values";
    strong.textContent = "(ε = " + fmt(rep.epsilon, 6) + ", δ = " + fmt(rep.delta, 3) + ")-DP";
    g.append(strong, document.createTextNode(", ρ = " + fmt(rep.rho_total, 6) + " zCDP; neighbouring datasets: "
                                            + (rep.neighbouring_relation || "") + "."));
    if (rep.secure_randomness === false) g.append(document.createTextNode(" Built with a seed: NOT for release."));
  } catch (e) { $("error").textContent = "Could not read the corpus's report: " + e.message; }
}
async function loadCorpora() {
  try {
    const d = await (await call("/v1/corpora")).json();
    const sel = $("corpus");
    sel.textContent = "";
    for (const c of d.corpora) {
      served[c.name] = c;
      const o = document.createElement("option");
      o.value = c.name; o.textContent = c.name;
      sel.append(o);
    }
    $("error").textContent = "";
    await loadGuarantee();
  } catch (e) { $("error").textContent = "Could not list the corpora (an API key may be needed): " + e.message; }
}
$("corpus").addEventListener("change", loadGuarantee);
$("key").addEventListener("change", loadCorpora);
$("card").addEventListener("click", async (ev) => {
  ev.preventDefault();
  try {
    const r = await call("/v1/corpora/" + encodeURIComponent($("corpus").value) + "/card");
    const url = URL.createObjectURL(new Blob([await r.text()], {type: "text/html"}));
    window.open(url, "_blank", "noopener");
  } catch (e) { $("error").textContent = "Could not open the corpus card: " + e.message; }
});
$("ask").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("error").textContent = ""; $("answer").textContent = "…"; $("contexts").textContent = "";
  $("submit").disabled = true;
  try {
    const body = {question: $("question").value};
    if ($("corpus").value) body.corpus = $("corpus").value;
    const d = await (await call(answers() ? "/v1/query" : "/v1/retrieve", body)).json();
    $("answer").textContent = answers() ? d.answer : "(retrieval only: no answer is generated)";
    for (const h of (answers() ? d.contexts : d.results)) {
      const li = document.createElement("li");
      const s = document.createElement("span");
      s.className = "score"; s.textContent = "score " + h.score.toFixed(3) + " · ";
      li.append(s, document.createTextNode(h.text));
      $("contexts").append(li);
    }
  } catch (e) { $("answer").textContent = ""; $("error").textContent = e.message; }
  finally { $("submit").disabled = false; }
});
$("question").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("ask").requestSubmit(); }
});
loadCorpora();
</script>
</body></html>
"""
"""The page (a constant: nothing in it depends on the corpora, which it asks the API for)."""
