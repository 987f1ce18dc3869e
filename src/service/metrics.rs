//! The service's metrics, in the OpenMetrics text format Prometheus scrapes
//! (`GET /metrics`): Evidence Gate checks and violations by type, citation density and
//! citations per checked text, validation and ask durations, answers by status, QA memory
//! hits, and the server's requests by route and status code.

use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::answer::Answer;
use crate::evidence::gate::GateResult;

type Labels = Vec<(String, String)>;

/// Counters and histograms of one service.
pub struct Metrics {
    registry: Registry,
    gate_violations: Family<Labels, Counter>,
    gate_checks: Family<Labels, Counter>,
    citation_density: Histogram,
    citations_per_report: Histogram,
    validation_seconds: Histogram,
    ask_seconds: Histogram,
    answers: Family<Labels, Counter>,
    memory_hits: Counter,
    requests: Family<Labels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn label(key: &str, value: &str) -> Labels {
    vec![(key.to_string(), value.to_string())]
}

impl Metrics {
    /// Every metric at zero.
    pub fn new() -> Self {
        let mut m = Metrics {
            registry: Registry::default(),
            gate_violations: Family::default(),
            gate_checks: Family::default(),
            citation_density: Histogram::new([0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0]),
            citations_per_report: Histogram::new(exponential_buckets(1.0, 2.0, 11)),
            validation_seconds: Histogram::new(exponential_buckets(0.0002, 2.0, 16)),
            ask_seconds: Histogram::new(exponential_buckets(0.005, 2.0, 14)),
            answers: Family::default(),
            memory_hits: Counter::default(),
            requests: Family::default(),
        };
        m.register_all();
        m
    }

    fn register_all(&mut self) {
        let r = &mut self.registry;
        r.register(
            "evidence_gate_violations",
            "Evidence Gate violations that failed a check, by type",
            self.gate_violations.clone(),
        );
        r.register(
            "evidence_gate_checks",
            "Evidence Gate checks of caller texts, by result (passed or failed)",
            self.gate_checks.clone(),
        );
        r.register(
            "evidence_gate_citation_density",
            "Citations per 100 words of each checked text",
            self.citation_density.clone(),
        );
        r.register(
            "evidence_gate_citations_per_report",
            "Citations in each checked text",
            self.citations_per_report.clone(),
        );
        r.register(
            "evidence_gate_validation_duration_seconds",
            "Time to check one text (gate and support check)",
            self.validation_seconds.clone(),
        );
        r.register(
            "ask_duration_seconds",
            "Time to answer one question",
            self.ask_seconds.clone(),
        );
        r.register(
            "answers",
            "Answers by status (answered, no_authoritative_evidence, rejected_input)",
            self.answers.clone(),
        );
        r.register(
            "memory_hits",
            "Answers served from the QA memory",
            self.memory_hits.clone(),
        );
        r.register(
            "http_requests",
            "HTTP requests by route and status code",
            self.requests.clone(),
        );
    }

    /// Record one gate check of a caller's text.
    pub fn gate_checked(&self, r: &GateResult, took: Duration) {
        let result = if r.passed { "passed" } else { "failed" };
        self.gate_checks
            .get_or_create(&label("result", result))
            .inc();
        for v in r
            .violations
            .iter()
            .filter(|v| v.severity == crate::evidence::gate::Severity::Error)
        {
            let t = super::validation::gate_type(v.kind);
            self.gate_violations.get_or_create(&label("type", t)).inc();
        }
        self.citation_density.observe(r.density_per_100_words);
        self.citations_per_report.observe(r.citations as f64);
        self.validation_seconds.observe(took.as_secs_f64());
    }

    /// Record one answer.
    pub fn answered(&self, a: &Answer, took: Duration) {
        let status = a.status.as_str();
        self.answers.get_or_create(&label("status", status)).inc();
        if a.metrics.memory_hit {
            self.memory_hits.inc();
        }
        self.ask_seconds.observe(took.as_secs_f64());
    }

    /// Record one HTTP request to `route` answered with `code`.
    pub fn request(&self, route: &str, code: u16) {
        let labels = vec![
            ("route".to_string(), route.to_string()),
            ("code".to_string(), code.to_string()),
        ];
        self.requests.get_or_create(&labels).inc();
    }

    /// The metrics in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        encode(&mut out, &self.registry).expect("writing to a String cannot fail");
        out
    }
}
