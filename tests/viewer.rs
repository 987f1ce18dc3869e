//! The evidence viewer in headless Chromium (through chromedriver and fantoccini), served
//! by a real `attest serve`: ask, hover a citation, open its document at the highlighted
//! quote, follow a citation with the keyboard, abstain, and run a review. Every expected
//! quote comes from the server's own JSON for the same request. Screenshots go to
//! `target/viewer/`. Skipped when Chromium or chromedriver is absent, unless
//! `ATTEST_REQUIRE_BROWSER=1` (set by `scripts/test.sh`) makes that a failure.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{ensure, Context};
use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use crate::common::server::{client, Server};

const QUESTION: &str = "How long must client records be retained?";
const OFF_CORPUS: &str = "What is the boiling point of mercury on Mars?";
/// The longest the page may take to show a result (an ask on a busy 2-core machine).
const WAIT: Duration = Duration::from_secs(120);

/// The browser binaries found on `PATH`.
struct Browser {
    chromium: PathBuf,
    driver: PathBuf,
}

fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Chromium and chromedriver, or `None` after saying the test is skipped; a failure
/// instead when `ATTEST_REQUIRE_BROWSER=1`.
fn browser() -> Option<Browser> {
    let chromium = on_path(&["chromium", "chromium-browser", "google-chrome"]);
    let driver = on_path(&["chromedriver"]);
    if let (Some(chromium), Some(driver)) = (chromium, driver) {
        return Some(Browser { chromium, driver });
    }
    assert!(
        std::env::var("ATTEST_REQUIRE_BROWSER").as_deref() != Ok("1"),
        "chromium/chromedriver not found and ATTEST_REQUIRE_BROWSER=1; run scripts/setup.sh"
    );
    eprintln!("viewer test skipped: chromium/chromedriver not found; run scripts/setup.sh");
    None
}

/// A chromedriver on a free loopback port, in its own process group so that the
/// browsers it starts go with it; killed when dropped (also when the test panics).
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start(exe: &Path) -> Driver {
        use std::os::unix::process::CommandExt;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(exe)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("spawn chromedriver");
        let driver = Driver { child, port };
        driver.wait_ready();
        driver
    }

    /// Until `GET /status` says `ready`.
    fn wait_ready(&self) {
        let http = client();
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let status = http
                .get(format!("http://127.0.0.1:{}/status", self.port))
                .timeout(Duration::from_secs(2))
                .send()
                .and_then(|r| r.json::<Value>());
            match status {
                Ok(v) if v["value"]["ready"] == true => return,
                other => assert!(
                    Instant::now() < end,
                    "chromedriver not ready on port {}: {other:?}",
                    self.port
                ),
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn capabilities(chromium: &Path) -> Capabilities {
    let mut caps = Capabilities::new();
    caps.insert("browserName".into(), json!("chrome"));
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1366,900", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"
            ]
        }),
    );
    caps
}

/// Run `flow` in a fresh headless browser session; the session is closed and chromedriver
/// stopped whatever the outcome. On failure: a `failure-NAME.png` screenshot, the page's
/// `#error` text, then a panic with the error.
fn with_browser<F, Fut>(b: &Browser, name: &str, flow: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let driver = Driver::start(&b.driver);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = rt.block_on(async {
        let c = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities(&b.chromium))
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await
            .context("new WebDriver session")?;
        let mut r = flow(c.clone()).await;
        if let Err(e) = &mut r {
            let _ = shot(&c, &format!("failure-{name}")).await;
            let page_error = js(
                &c,
                "return document.getElementById('error').textContent",
                vec![],
            );
            if let Ok(Value::String(s)) = page_error.await {
                *e = anyhow::anyhow!("{e:#}\n#error on the page: {s:?}");
            }
        }
        let closed = c.close().await;
        r.and(closed.context("close the WebDriver session"))
    });
    drop(driver);
    if let Err(e) = result {
        panic!("viewer {name}: {e:#}");
    }
}

fn shot_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("viewer")
}

async fn shot(c: &Client, name: &str) -> anyhow::Result<PathBuf> {
    let png = c.screenshot().await?;
    ensure!(png.starts_with(b"\x89PNG"), "screenshot is not a PNG");
    let path = shot_dir().join(format!("{name}.png"));
    std::fs::create_dir_all(shot_dir())?;
    std::fs::write(&path, png)?;
    eprintln!("viewer screenshot: {}", path.display());
    Ok(path)
}

async fn js(c: &Client, script: &str, args: Vec<Value>) -> anyhow::Result<Value> {
    c.execute(script, args)
        .await
        .with_context(|| format!("script {script:?}"))
}

fn arg(e: &Element) -> Value {
    serde_json::to_value(e).unwrap()
}

/// Poll `script` (which returns a boolean) until it returns `true`, for at most `WAIT`.
async fn wait_true(c: &Client, what: &str, script: &str, args: Vec<Value>) -> anyhow::Result<()> {
    let end = Instant::now() + WAIT;
    loop {
        if js(c, script, args.clone()).await? == true {
            return Ok(());
        }
        ensure!(
            Instant::now() < end,
            "timed out after {WAIT:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `POST path` with a JSON body; the JSON answer (status 200 required).
fn post(server: &Server, path: &str, body: Value) -> Value {
    let r = client().post(server.url(path)).json(&body).send().unwrap();
    assert_eq!(r.status(), 200, "POST {path}");
    r.json().unwrap()
}

/// The evidence item `id` among `items`.
fn item<'a>(items: &'a Value, id: &str) -> anyhow::Result<&'a Value> {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["id"] == id))
        .with_context(|| format!("no evidence {id} in {items}"))
}

/// Until the document panel shows exactly one `mark#highlight` whose text is `quote`,
/// inside the viewport, with the panel focused (waiting for the focus too: an item cited
/// twice leaves the same quote highlighted while the click's own fetch is in flight).
async fn expect_highlight(c: &Client, quote: &str) -> anyhow::Result<()> {
    let script = "const m = document.getElementById('highlight');
        return !!m && m.textContent === arguments[0]
            && document.querySelectorAll('#document-text mark').length === 1
            && !!document.activeElement && document.activeElement.id === 'document';";
    let waited = wait_true(c, "the highlighted quote", script, vec![json!(quote)]).await;
    if let Err(e) = waited {
        let shown = js(
            c,
            "const m = document.getElementById('highlight'); return m && m.textContent;",
            vec![],
        )
        .await?;
        return Err(e.context(format!("highlight shows {shown}, expected {quote:?}")));
    }
    let place = js(
        c,
        "const r = document.getElementById('highlight').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: innerHeight,
            title: document.getElementById('document-title').textContent,
            panel: !document.getElementById('document').hidden,
            focused: document.activeElement && document.activeElement.id};",
        vec![],
    )
    .await?;
    let (top, bottom, height) = (&place["top"], &place["bottom"], &place["height"]);
    let (top, bottom, height) = (top.as_f64(), bottom.as_f64(), height.as_f64());
    ensure!(
        matches!((top, bottom, height), (Some(t), Some(b), Some(h)) if t >= 0.0 && b <= h),
        "the highlight is outside the viewport: {place}"
    );
    ensure!(place["panel"] == true, "#document hidden: {place}");
    ensure!(place["title"] != "", "#document-title empty: {place}");
    ensure!(
        place["focused"] == "document",
        "#document not focused: {place}"
    );
    Ok(())
}

/// Hover `cite` with the pointer; the tooltip must show `expected`'s quote and source.
async fn expect_hover(c: &Client, cite: &Element, expected: &Value) -> anyhow::Result<()> {
    js(
        c,
        "arguments[0].scrollIntoView({block: 'center'}); return true;",
        vec![arg(cite)],
    )
    .await?;
    let hover = MouseActions::new("mouse".to_string()).then(PointerAction::MoveToElement {
        element: cite.clone(),
        duration: Some(Duration::from_millis(50)),
        x: 0.0,
        y: 0.0,
    });
    c.perform_actions(hover).await?;
    expect_tooltip(c, expected).await
}

/// `#tooltip` visible with `.tip-quote` == the item's quote and `.tip-source` its source.
async fn expect_tooltip(c: &Client, expected: &Value) -> anyhow::Result<()> {
    let script = "const t = document.getElementById('tooltip');
        const r = t.getBoundingClientRect();
        return !t.hidden && getComputedStyle(t).display !== 'none' && r.width > 0
            && t.querySelector('.tip-quote').textContent === arguments[0]
            && t.querySelector('.tip-source').textContent === arguments[1];";
    let args = vec![expected["quote"].clone(), expected["source"].clone()];
    if let Err(e) = wait_true(c, "the tooltip", script, args).await {
        let tip = "const t = document.getElementById('tooltip');
            return {hidden: t.hidden, text: t.textContent};";
        let tip = js(c, tip, vec![]).await?;
        return Err(e.context(format!("tooltip {tip}, expected {expected}")));
    }
    Ok(())
}

#[test]
fn viewer_answer_hover_document_keyboard_abstain() {
    let Some(b) = browser() else { return };
    let (_tmp, idx) = crate::cli::sample_index();
    let server = Server::start(&idx, &[], &[]);
    // The same question the page asks: the page's answer comes from the QA memory.
    let expected = post(&server, "/v1/ask", json!({ "question": QUESTION }));
    assert_eq!(expected["status"], "answered", "{expected}");
    with_browser(&b, "ask", |c| async move {
        c.goto(&server.url("/")).await?;
        c.find(Locator::Id("question"))
            .await?
            .send_keys(QUESTION)
            .await?;
        c.find(Locator::Id("ask-button")).await?.click().await?;
        let wait = c.wait().at_most(WAIT).every(Duration::from_millis(250));
        wait.for_element(Locator::Css("#answer .cite")).await?;
        let status = c.find(Locator::Id("answer-status")).await?.text().await?;
        ensure!(status == "answered", "#answer-status {status:?}");
        shot(&c, "answer").await?;
        answer_citations(&c, &expected["evidence"]).await?;
        abstain(&c).await
    });
}

/// Hover, click and keyboard on the answer's citations.
async fn answer_citations(c: &Client, evidence: &Value) -> anyhow::Result<()> {
    let cites = c.find_all(Locator::Css("#answer .cite")).await?;
    ensure!(cites.len() >= 2, "{} citations in #answer", cites.len());
    let id = cites[0].attr("data-id").await?.context("data-id")?;
    let first = item(evidence, &id)?;
    ensure!(cites[0].attr("data-key").await?.as_deref() == first["evidence_key"].as_str());
    expect_hover(c, &cites[0], first).await?;
    shot(c, "hover").await?;
    cites[0].click().await?;
    expect_highlight(c, first["quote"].as_str().context("quote")?).await?;
    shot(c, "document").await?;

    // Keyboard: focus the second citation (its tooltip shows), Enter opens it.
    let id = cites[1].attr("data-id").await?.context("data-id")?;
    let second = item(evidence, &id)?;
    js(
        c,
        "arguments[0].focus(); return true;",
        vec![arg(&cites[1])],
    )
    .await?;
    expect_tooltip(c, second).await?;
    cites[1].send_keys(&Key::Enter).await?;
    expect_highlight(c, second["quote"].as_str().context("quote")?).await?;

    // Every other citation opens its own quote too.
    for cite in &cites[2..] {
        let id = cite.attr("data-id").await?.context("data-id")?;
        cite.click().await?;
        let quote = item(evidence, &id)?["quote"].as_str().context("quote")?;
        expect_highlight(c, quote).await?;
    }
    Ok(())
}

/// An off-corpus question (Enter in the input asks): the page says so and lists what is
/// missing, with no citation.
async fn abstain(c: &Client) -> anyhow::Result<()> {
    let input = c.find(Locator::Id("question")).await?;
    input.clear().await?;
    input
        .send_keys(&format!("{OFF_CORPUS}{}", &*Key::Enter))
        .await?;
    let script = "return document.getElementById('answer-status').textContent
        === 'no_authoritative_evidence';";
    wait_true(
        c,
        "#answer-status no_authoritative_evidence",
        script,
        vec![],
    )
    .await?;
    let missing = c.find_all(Locator::Css("#missing li")).await?;
    ensure!(!missing.is_empty(), "no #missing li");
    ensure!(missing[0].is_displayed().await?, "#missing is not shown");
    let cites = c.find_all(Locator::Css("#answer .cite")).await?;
    ensure!(
        cites.is_empty(),
        "{} citations in an abstention",
        cites.len()
    );
    let stale = "return !document.getElementById('document').hidden
        || !!document.getElementById('highlight');";
    let stale = js(c, stale, vec![]).await?;
    ensure!(
        stale == false,
        "the previous answer's document is still shown"
    );
    shot(c, "abstain").await?;
    Ok(())
}

fn review_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/review")
}

#[test]
fn viewer_review() {
    let Some(b) = browser() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let (r, code) = crate::cli::ingest_json(&idx, &[&review_dir()]);
    assert_eq!(code, 0, "{r}");
    let text = std::fs::read_to_string(review_dir().join("checklist.json")).unwrap();
    let checklist: Value = serde_json::from_str(&text).unwrap();
    let server = Server::start(&idx, &[], &[]);
    let expected = post(&server, "/v1/review", json!({ "checklist": checklist }));
    let count = checklist["requirements"].as_array().unwrap().len();
    assert_eq!(expected["requirements"].as_array().unwrap().len(), count);
    with_browser(&b, "review", |c| async move {
        c.goto(&server.url("/")).await?;
        c.find(Locator::Id("tab-review")).await?.click().await?;
        let area = c.find(Locator::Id("checklist")).await?;
        ensure!(
            area.is_displayed().await?,
            "#checklist not shown after #tab-review"
        );
        js(
            &c,
            "arguments[0].value = arguments[1]; return true;",
            vec![arg(&area), json!(text)],
        )
        .await?;
        c.find(Locator::Id("review-button")).await?.click().await?;
        let script = "return document.querySelectorAll('#review-results .requirement').length
            === arguments[0];";
        wait_true(&c, "the requirements", script, vec![json!(count)]).await?;
        let statuses = "return [...document.querySelectorAll('.requirement .req-status')]
            .map(s => s.textContent);";
        let statuses = js(&c, statuses, vec![]).await?;
        ensure!(
            statuses
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s == "evidenced"),
            "no evidenced requirement: {statuses}"
        );
        review_citations(&c, &expected).await
    });
}

/// Each requirement's citations open the document at that requirement's quote.
async fn review_citations(c: &Client, expected: &Value) -> anyhow::Result<()> {
    let reqs = c
        .find_all(Locator::Css("#review-results .requirement"))
        .await?;
    let mut opened = 0;
    for req in &reqs {
        let rid = req.find(Locator::Css(".req-id")).await?.text().await?;
        let want = expected["requirements"]
            .as_array()
            .and_then(|a| a.iter().find(|q| q["id"] == rid.as_str()))
            .with_context(|| format!("requirement {rid} not in the review JSON"))?;
        for cite in req.find_all(Locator::Css(".cite")).await? {
            let id = cite.attr("data-id").await?.context("data-id")?;
            let quote = item(&want["evidence"], &id)?["quote"]
                .as_str()
                .context("quote")?;
            cite.click().await?;
            let shown = expect_highlight(c, quote).await;
            shown.with_context(|| format!("requirement {rid} evidence {id}"))?;
            if opened == 0 {
                shot(c, "review").await?;
            }
            opened += 1;
        }
    }
    ensure!(opened > 0, "no citation in any requirement");
    let fields: usize = expected["requirements"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|q| q["fields"].as_array().map(Vec::len))
        .sum();
    let shown = c.find_all(Locator::Css(".requirement .field")).await?.len();
    ensure!(
        shown == fields,
        "{shown} .field elements for {fields} field values"
    );
    eprintln!("viewer review: {opened} citations highlighted");
    Ok(())
}
