//! The engine as a long-running service, shared by the HTTP server and the MCP server:
//! the models and the dense index are loaded once; each worker holds its own database
//! connection; requests are typed and bounded before any work starts.
//!
//! Consistency while `attest ingest` writes the same index: a request notes the corpus
//! version, brings the shared dense index to it (reloading it when the version moved),
//! runs, and reads the version again. When an ingest committed in between, the request
//! runs again on the new corpus (three attempts at most, then it is refused as busy), so
//! every result comes from one corpus version, which it reports.

pub mod documents;
pub mod metrics;
pub mod requests;
pub mod validation;

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use crate::answer::Answer;
use crate::ask::{ask, AskOptions};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::engine::{Access, Engine};
use crate::error::Error;
use crate::index::Dense;
use crate::models::cache::CachedEmbed;
use crate::retrieve::{search_in, Restrict, SearchResult};
use crate::review::{checklist, Review, ReviewOptions};

pub use documents::{DocumentSummary, DocumentView, EvidenceCheck};
pub use metrics::Metrics;
pub use requests::{
    AskBatchRequest, AskRequest, ReviewRequest, SearchRequest, SourcesRequest, Thresholds,
    ValidateRequest,
};
pub use validation::{GateOutcome, GateRejection};

/// One answer of a batch.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BatchAnswer {
    /// The question's id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The corpus version the answer was given at.
    pub corpus_version: u64,
    /// The answer JSON of `POST /v1/ask`.
    pub answer: Answer,
}

/// What `POST /v1/ask/batch` returns: the answers in the order asked, and the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BatchReply {
    /// One answer per question asked.
    pub results: Vec<BatchAnswer>,
    /// Answered, abstained and rejected counts, time and rate (of the questions asked).
    pub summary: crate::ask::batch::BatchSummary,
    /// The time limit came (or the client left) before every question was asked.
    pub stopped: bool,
    /// The ids of the questions not asked, in order (empty unless `stopped`).
    pub not_asked: Vec<String>,
}

/// Bytes of embeddings a service keeps (questions, candidate and quote sentences): the
/// same text is embedded once while the server runs.
const EMBEDDING_CACHE_BYTES: usize = 64 << 20;

/// Attempts of a request while an ingest keeps changing the corpus.
const ATTEMPTS: usize = 3;

/// Why the service refused or failed a request.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request is malformed or out of range (HTTP 400).
    #[error("{0}")]
    BadRequest(String),
    /// It names something the index does not hold (HTTP 404).
    #[error("{0}")]
    NotFound(String),
    /// A text or question is longer than the server accepts (HTTP 413).
    #[error("{0}")]
    TooLarge(String),
    /// The corpus kept changing during the request (HTTP 503, retry later).
    #[error("{0}")]
    Busy(String),
    /// The engine failed (HTTP 500).
    #[error(transparent)]
    Engine(#[from] Error),
}

impl From<crate::store::StoreError> for ServiceError {
    fn from(e: crate::store::StoreError) -> Self {
        ServiceError::Engine(e.into())
    }
}

/// Whether the engine error is the caller's mistake (a usage error) rather than ours.
fn classify(e: Error) -> ServiceError {
    match e {
        Error::Usage(m) => ServiceError::BadRequest(m),
        Error::Cancelled => ServiceError::Busy(Error::Cancelled.to_string()),
        Error::EmptyQuery => ServiceError::BadRequest("empty query".into()),
        Error::Checklist(c) => ServiceError::BadRequest(c.to_string()),
        other => ServiceError::Engine(other),
    }
}

/// Refuse a checklist that needs more than `max` research queries (one per requirement
/// and one per field it asks for), naming the limit.
fn review_budget(list: &checklist::Checklist, max: usize) -> Result<(), ServiceError> {
    let queries: usize = list
        .requirements
        .iter()
        .map(|r| crate::review::gather::Gatherer::queries(r).len())
        .sum();
    if queries > max {
        return Err(ServiceError::TooLarge(format!(
            "the checklist needs {queries} research queries ({} requirements and their fields); \
             a review request may need at most {max} (serve_max_review_queries): split the checklist",
            list.requirements.len()
        )));
    }
    Ok(())
}

/// A result with the corpus version it was computed at.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    /// The result.
    pub value: T,
    /// The corpus version every read of the request saw.
    pub corpus_version: u64,
}

/// The shared engines, models and caches of a server.
pub struct Service {
    cfg: Config,
    /// The workers of questions, searches and every other short request.
    workers: Workers,
    /// The workers of reviews, so that a question never waits behind a review.
    reviewers: Workers,
    /// The dense index at its corpus version, shared by the workers.
    dense: Mutex<(u64, Arc<Dense>)>,
    embedder: Arc<dyn crate::models::Embed>,
    generator: bool,
    evidence: documents::EvidenceLog,
    metrics: Metrics,
}

/// A pool of worker engines and the queue of requests waiting for one.
struct Workers {
    pool: Mutex<Pool>,
    returned: Condvar,
}

/// The idle engines and the queue of requests waiting for one, served in arrival order.
struct Pool {
    idle: Vec<Engine>,
    next_ticket: u64,
    serving: u64,
}

/// Gives a worker's engine back to its pool when the request ends, even on a panic.
struct Lease<'s> {
    workers: &'s Workers,
    engine: Option<Engine>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(e) = self.engine.take() {
            lock(&self.workers.pool).idle.push(e);
            self.workers.returned.notify_all();
        }
    }
}

impl Workers {
    fn new(idle: Vec<Engine>) -> Self {
        Workers {
            pool: Mutex::new(Pool {
                idle,
                next_ticket: 0,
                serving: 0,
            }),
            returned: Condvar::new(),
        }
    }

    /// Wait for an idle worker, first come first served.
    fn lease(&self) -> Lease<'_> {
        let mut pool = lock(&self.pool);
        let ticket = pool.next_ticket;
        pool.next_ticket += 1;
        loop {
            if pool.serving == ticket {
                if let Some(e) = pool.idle.pop() {
                    pool.serving += 1;
                    // The next in line may find another idle worker.
                    self.returned.notify_all();
                    return Lease {
                        workers: self,
                        engine: Some(e),
                    };
                }
            }
            pool = self.returned.wait(pool).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Lock `m`, recovering the data from a panicked holder (every holder leaves it valid).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Service {
    /// Open the index of `cfg` read-only with the bundled bi-encoder, `workers` database
    /// connections and, with `generator`, the configured GGUF generator.
    pub fn open(cfg: Config, workers: usize, generator: bool) -> Result<Service, Error> {
        let mut first = Engine::open_with_default_model(cfg.clone(), Access::Read)?;
        if generator {
            first.load_generator()?;
        }
        let cached = CachedEmbed::new(first.embedder_arc(), EMBEDDING_CACHE_BYTES);
        first.set_embedder(Arc::new(cached))?;
        Self::from_engine(first, workers)
    }

    /// A service over `first` and `workers - 1` more readers of its index, and
    /// `serve_review_workers` readers for reviews.
    pub fn from_engine(first: Engine, workers: usize) -> Result<Service, Error> {
        let mut idle = Vec::with_capacity(workers.max(1));
        for _ in 1..workers.max(1) {
            idle.push(first.reader()?);
        }
        let reviewers = (0..first.config().serve_review_workers.max(1))
            .map(|_| first.reader())
            .collect::<Result<Vec<_>, _>>()?;
        let dense = (
            first.dense_version(),
            first
                .dense_arc()
                .expect("an opened engine has a dense index"),
        );
        let cfg = first.config().clone();
        let embedder = first.embedder_arc();
        let generator = first.generator().is_some();
        idle.push(first);
        Ok(Service {
            cfg,
            workers: Workers::new(idle),
            reviewers: Workers::new(reviewers),
            dense: Mutex::new(dense),
            embedder,
            generator,
            evidence: documents::EvidenceLog::new(documents::EVIDENCE_LOG_CAPACITY),
            metrics: Metrics::new(),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The metrics every operation records.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Run `f` on a worker's engine at one corpus version (see the module docs).
    fn run<T>(
        &self,
        f: impl Fn(&Engine) -> Result<T, ServiceError>,
    ) -> Result<Versioned<T>, ServiceError> {
        self.run_on(&self.workers, &Cancel::never(), f)
    }

    /// [`Service::run`] on one of `workers`; a request cancelled while it waited for
    /// the worker gives it back at once.
    fn run_on<T>(
        &self,
        workers: &Workers,
        cancel: &Cancel,
        f: impl Fn(&Engine) -> Result<T, ServiceError>,
    ) -> Result<Versioned<T>, ServiceError> {
        let mut lease = workers.lease();
        cancel.check().map_err(classify)?;
        let engine = lease.engine.as_mut().expect("a leased engine");
        for _ in 0..ATTEMPTS {
            let version = engine.store().corpus_version()?;
            self.sync_dense(engine, version)?;
            let value = f(engine)?;
            if engine.store().corpus_version()? == version {
                return Ok(Versioned {
                    value,
                    corpus_version: version,
                });
            }
            tracing::info!(
                "the corpus changed during a request (version {version}); running it again"
            );
        }
        Err(ServiceError::Busy(format!(
            "the corpus changed during {ATTEMPTS} attempts (an ingest is running); retry later"
        )))
    }

    /// Give `engine` the dense index of corpus `version`, loading it once for all workers.
    fn sync_dense(&self, engine: &mut Engine, version: u64) -> Result<(), ServiceError> {
        if engine.dense_version() == version {
            return Ok(());
        }
        let mut shared = lock(&self.dense);
        if shared.0 != version {
            engine.refresh_dense(false)?;
            let loaded = engine.dense_arc().expect("refreshed");
            *shared = (engine.dense_version(), loaded);
            tracing::info!("dense index reloaded at corpus version {}", shared.0);
        } else {
            engine.set_dense(shared.1.clone(), shared.0);
        }
        Ok(())
    }

    /// Answer a question (see [`crate::ask::ask`]); every evidence item served is kept
    /// for [`Service::evidence`].
    pub fn ask(&self, req: &AskRequest) -> Result<Versioned<Answer>, ServiceError> {
        let t = Instant::now();
        let question = req.question(&self.cfg)?;
        let mut opts = AskOptions::from_config(&self.cfg);
        req.apply(&self.cfg, &mut opts)?;
        opts.generate &= self.generator;
        let filter = requests::filter_of(&req.conditions, &req.collection, &req.as_of)?;
        opts.scope = self.scope(req.scope.as_deref(), &filter)?;
        let run = self.run(|e| ask(e, question, &opts).map_err(classify))?;
        let answer = run.value.answer;
        self.evidence.record(&answer.evidence);
        self.metrics.answered(&answer, t.elapsed());
        Ok(Versioned {
            value: answer,
            corpus_version: run.corpus_version,
        })
    }

    /// Ask every question of a batch on a review worker (a batch never holds up single
    /// questions). Each answer names the corpus version it was given at: a question the
    /// corpus changed under is asked again at the new version, so a batch an ingest
    /// crosses keeps what it answered before. When `cancel` says so (the time limit near,
    /// the client gone) the batch stops and returns what it answered, the rest listed.
    pub fn ask_batch(
        &self,
        req: &requests::AskBatchRequest,
        cancel: &Cancel,
    ) -> Result<Versioned<BatchReply>, ServiceError> {
        let t = Instant::now();
        let asks = req.requests(&self.cfg)?;
        // The options are the batch's: every request carries the same ones.
        let first = &asks[0].1;
        let mut opts = AskOptions::from_config(&self.cfg);
        first.apply(&self.cfg, &mut opts)?;
        opts.generate &= self.generator;
        let filter = requests::filter_of(&first.conditions, &first.collection, &first.as_of)?;
        let mut lease = self.reviewers.lease();
        cancel.check().map_err(classify)?;
        let engine = lease.engine.as_mut().expect("a leased engine");
        let mut at = None;
        let mut reply = BatchReply::default();
        // The longest question so far: one that would not end before the deadline is not
        // started, so the batch returns in time on a slow or busy machine.
        let mut longest = std::time::Duration::ZERO;
        for (id, one) in &asks {
            if cancel.is_cancelled() || cancel.remaining().is_some_and(|r| r < longest) {
                reply.stopped = true;
                reply.not_asked.push(id.clone());
                continue;
            }
            let started = Instant::now();
            let (answer, version) =
                self.batch_answer(engine, &mut at, &mut opts, &one.question, first, &filter)?;
            longest = longest.max(started.elapsed());
            self.evidence.record(&answer.evidence);
            self.metrics.answered(&answer, started.elapsed());
            reply.summary.count(answer.status);
            let (id, question) = (id.clone(), one.question.clone());
            reply.results.push(BatchAnswer {
                id,
                question,
                corpus_version: version,
                answer,
            });
        }
        reply.summary.finish(t.elapsed().as_secs_f64());
        let corpus_version = match at {
            Some(v) => v,
            None => engine.store().corpus_version()?,
        };
        Ok(Versioned {
            value: reply,
            corpus_version,
        })
    }

    /// One question of a batch, at one corpus version (`at`: the version the batch's
    /// scope and dense index were made for, updated when the corpus changed).
    fn batch_answer(
        &self,
        engine: &mut Engine,
        at: &mut Option<u64>,
        opts: &mut AskOptions,
        question: &str,
        req: &AskRequest,
        filter: &crate::authority::Filter,
    ) -> Result<(Answer, u64), ServiceError> {
        for _ in 0..ATTEMPTS {
            let version = engine.store().corpus_version()?;
            if *at != Some(version) {
                self.sync_dense(engine, version)?;
                opts.scope = scope_on(engine, req.scope.as_deref(), filter)?;
                *at = Some(version);
            }
            let answer = ask(engine, question, opts).map_err(classify)?.answer;
            if engine.store().corpus_version()? == version {
                return Ok((answer, version));
            }
        }
        Err(ServiceError::Busy(format!(
            "the corpus changed during {ATTEMPTS} attempts at one question (an ingest is running); retry later"
        )))
    }

    /// Search the index.
    pub fn search(&self, req: &SearchRequest) -> Result<Versioned<SearchResult>, ServiceError> {
        let (query, mode, k) = req.parts(&self.cfg)?;
        let filter = requests::filter_of(&req.conditions, &req.collection, &req.as_of)?;
        let scope = self.scope(req.scope.as_deref(), &filter)?;
        self.run(|e| search_in(e, query, mode, k, scope.as_deref()).map_err(classify))
    }

    /// Review the index (or the documents under `scope`) against the request's checklist,
    /// on a review worker, within `serve_max_review_queries` research queries, stopping
    /// when `cancel` says so.
    pub fn review(
        &self,
        req: ReviewRequest,
        cancel: &Cancel,
    ) -> Result<Versioned<Review>, ServiceError> {
        let mut opts = ReviewOptions::from_config(&self.cfg);
        opts.date_order = req.date_order()?;
        opts.propose = self.generator;
        opts.cancel = cancel.clone();
        let list = checklist::from_value(Path::new("request checklist"), req.checklist)
            .map_err(|e| ServiceError::BadRequest(e.to_string()))?;
        review_budget(&list, self.cfg.serve_max_review_queries)?;
        let filter = requests::filter_of(&req.conditions, &req.collection, &req.as_of)?;
        opts.ask.scope = self.scope(req.scope.as_deref(), &filter)?;
        let r = self.run_on(&self.reviewers, cancel, |e| {
            crate::review::review(e, &list, &opts).map_err(classify)
        })?;
        for req in &r.value.requirements {
            self.evidence.record(&req.evidence);
        }
        Ok(r)
    }

    /// The indexed documents as sources (type, authority, dates, supersessions) that the
    /// request selects.
    pub fn sources(
        &self,
        req: &requests::SourcesRequest,
    ) -> Result<Versioned<crate::authority::Catalog>, ServiceError> {
        let filter = requests::filter_of(&req.conditions, &req.collection, &req.as_of)?;
        let scope = self.scope(req.scope.as_deref(), &filter)?;
        self.run(|e| {
            let mut c = crate::authority::Catalog::load(e).map_err(classify)?;
            if let Some(s) = &scope {
                c.documents.retain(|d| s.contains(&d.doc_id));
            }
            Ok(c)
        })
    }

    /// The requirements of the sources the request selects (see
    /// [`crate::authority::requirements`]).
    pub fn requirements(
        &self,
        req: &requests::SourcesRequest,
    ) -> Result<Versioned<Vec<crate::authority::requirements::Requirement>>, ServiceError> {
        let filter = requests::filter_of(&req.conditions, &req.collection, &req.as_of)?;
        let scope = self.scope(req.scope.as_deref(), &filter)?;
        self.run(|e| {
            let mut list =
                crate::authority::requirements::requirements(e, &filter).map_err(classify)?;
            if let Some(s) = &scope {
                list.retain(|r| s.contains(&r.doc_id));
            }
            Ok(list)
        })
    }

    /// What the index holds and whether it is healthy.
    pub fn status(&self) -> Result<crate::status::Status, ServiceError> {
        crate::status::status(&self.cfg, false).map_err(classify)
    }

    /// The indexed documents whose path or source is one of `scope` or under it
    /// (matched as text: a request never reads the file system) and that `filter`
    /// selects, as a retrieval restriction (`None` when neither restricts).
    fn scope(
        &self,
        scope: Option<&[String]>,
        filter: &crate::authority::Filter,
    ) -> Result<Option<Arc<Restrict>>, ServiceError> {
        Ok(self.run(|e| scope_on(e, scope, filter))?.value)
    }
}

/// The documents a request may cite on `engine`: under `scope` and passing `filter`
/// (`None`: every document).
fn scope_on(
    e: &Engine,
    scope: Option<&[String]>,
    filter: &crate::authority::Filter,
) -> Result<Option<Arc<Restrict>>, ServiceError> {
    let ids = match scope {
        Some(s) => Some(documents::ids_under(e.store(), s)?),
        None => None,
    };
    let restricted = crate::authority::restrict(e, ids, filter).map_err(classify)?;
    Ok(restricted.map(|(r, _)| Arc::new(r)))
}

#[cfg(test)]
mod tests;
