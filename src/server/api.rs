//! The HTTP endpoints: JSON in and out, in the shapes of the CLI's `--json`; every
//! error an `application/problem+json` body (400 malformed, 404, 413, 422 Evidence Gate
//! rejection with its own problem type, 429, 500, 503). The OpenAPI document is
//! generated from these handlers.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::OpenApi;

use super::access::{problem, problem_json};
use super::App;
use crate::cancel::Cancel;
use crate::service::validation::{CitationStats, GateThresholds, GateViolation};
use crate::service::{
    AskBatchRequest, AskRequest, GateRejection, ReviewRequest, SearchRequest, Service,
    ServiceError, SourcesRequest, Thresholds, ValidateRequest, Versioned,
};

/// Seconds a client told 429 or 503 should wait.
const RETRY_AFTER_SECS: &str = "1";

/// Time a client has to send its body once the headers arrived.
const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The OpenAPI document of the server.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "attest",
        description = "Cited answers, checklist reviews and the Evidence Gate over a local document index"
    ),
    paths(
        ask,
        ask_batch,
        search,
        review,
        validate,
        sources,
        requirements,
        status,
        document,
        evidence,
        healthz,
        metrics,
        openapi
    ),
    components(schemas(
        AskRequest,
        AskBatchRequest,
        crate::service::requests::BatchItem,
        SearchRequest,
        ReviewRequest,
        SourcesRequest,
        ValidateRequest,
        Thresholds,
        crate::service::requests::EvidenceInput,
        GateRejection,
        GateViolation,
        CitationStats,
        GateThresholds,
        Problem,
        crate::service::DocumentView,
        crate::service::EvidenceCheck,
        crate::service::documents::Drift
    ))
)]
pub struct ApiDoc;

/// An RFC 9457 problem body.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Problem {
    /// `urn:attest:problem:KIND`.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// Short title.
    pub title: String,
    /// HTTP status.
    pub status: u16,
    /// What went wrong.
    pub detail: String,
}

/// A JSON request body: malformed JSON, a wrong field or an unknown one is 400 with a
/// problem body naming the field; a body over the limit is 413.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned> FromRequest<Arc<App>> for Body<T> {
    type Rejection = Response;

    async fn from_request(req: Request, app: &Arc<App>) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > app.max_body as u64) {
            return Err(too_large(app.max_body));
        }
        if !(content_type.starts_with("application/json") || content_type.contains("+json")) {
            return Err(problem(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "not-json",
                "send the body as Content-Type: application/json",
            ));
        }
        let read = tokio::time::timeout(BODY_READ_TIMEOUT, Bytes::from_request(req, app));
        let bytes = match read.await {
            Err(_) => {
                return Err(problem(
                    StatusCode::REQUEST_TIMEOUT,
                    "body-timeout",
                    format!(
                        "the body did not arrive within {} s",
                        BODY_READ_TIMEOUT.as_secs()
                    ),
                ))
            }
            Ok(Err(e)) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(too_large(app.max_body))
            }
            Ok(Err(e)) => return Err(problem(e.status(), "bad-body", e.body_text())),
            Ok(Ok(b)) => b,
        };
        parse(&bytes)
            .map(Body)
            .map_err(|detail| problem(StatusCode::BAD_REQUEST, "malformed-request", detail))
    }
}

/// 413 for a body over `max` bytes.
fn too_large(max: usize) -> Response {
    problem(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body-too-large",
        format!("the request body is over {max} bytes"),
    )
}

/// `bytes` as one JSON value of type `T`, or what is wrong with them (naming the field).
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| format!("invalid request body at {}: {}", e.path(), e.inner()))?;
    de.end().map_err(|e| format!("invalid request body: {e}"))?;
    Ok(value)
}

/// 429: no free place among the requests the server holds. A place is taken once the
/// body has arrived, so a slow client never holds one while it sends.
fn too_many() -> Response {
    retry_later(problem(
        StatusCode::TOO_MANY_REQUESTS,
        "too-many-requests",
        "the server is at its concurrency limit; retry shortly",
    ))
}

/// Run `f` on the service in a blocking worker within the time limit, holding a place
/// among the requests until it ends (a request that timed out still holds its place
/// while it runs).
async fn blocking<T: Send + 'static>(
    app: &Arc<App>,
    f: impl FnOnce(&Service) -> Result<T, ServiceError> + Send + 'static,
) -> Result<T, Response> {
    let Ok(permit) = app.permits.clone().try_acquire_owned() else {
        return Err(too_many());
    };
    let service = app.service.clone();
    let task = tokio::task::spawn_blocking(move || {
        let _held = permit;
        f(&service)
    });
    match tokio::time::timeout(app.timeout, task).await {
        Err(_) => Err(retry_later(problem(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the request took longer than {} s", app.timeout.as_secs()),
        ))),
        Ok(Err(join)) => Err(problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the request failed: {join}"),
        )),
        Ok(Ok(r)) => r.map_err(error_response),
    }
}

/// The problem response of a service error.
pub fn error_response(e: ServiceError) -> Response {
    let (status, kind) = match &e {
        ServiceError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request"),
        ServiceError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
        ServiceError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "too-large"),
        ServiceError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
        ServiceError::Engine(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
    };
    if status == StatusCode::INTERNAL_SERVER_ERROR {
        tracing::error!(target: "attest::server", "{e}");
    }
    let r = problem(status, kind, e.to_string());
    if status == StatusCode::SERVICE_UNAVAILABLE {
        retry_later(r)
    } else {
        r
    }
}

/// `r` with `Retry-After`.
fn retry_later(mut r: Response) -> Response {
    r.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(RETRY_AFTER_SECS),
    );
    r
}

/// `value` as JSON with the corpus version it was computed at.
fn versioned<T: Serialize>(v: Versioned<T>) -> Response {
    let mut r = axum::Json(v.value).into_response();
    r.headers_mut().insert(
        "x-attest-corpus-version",
        HeaderValue::from(v.corpus_version),
    );
    r
}

fn done<T: Serialize>(r: Result<Versioned<T>, Response>) -> Response {
    r.map_or_else(|e| e, versioned)
}

/// Answer a question with cited, span-checked evidence (or `no_authoritative_evidence`).
#[utoipa::path(post, path = "/v1/ask", request_body = AskRequest, responses(
    (status = 200, description = "The answer JSON of `attest ask --json`", body = Object),
    (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
    (status = 413, description = "Question or body too long", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "At the concurrency limit", body = Problem, content_type = "application/problem+json"),
))]
pub async fn ask(State(app): State<Arc<App>>, Body(req): Body<AskRequest>) -> Response {
    done(blocking(&app, move |s| s.ask(&req)).await)
}

/// Ask a batch of questions (the limits of `attest ask --questions`), each answer with
/// the corpus version it was given at; near the request's time limit the batch stops and
/// returns what it answered.
#[utoipa::path(post, path = "/v1/ask/batch", request_body = AskBatchRequest, responses(
    (status = 200, description = "`results` (id, question, corpus_version and the answer JSON of `/v1/ask`, in order), `summary`, and `stopped` with the ids `not_asked` when the time limit came first", body = Object),
    (status = 400, description = "Malformed request, a repeated id, or no question", body = Problem, content_type = "application/problem+json"),
    (status = 413, description = "Body too long", body = Problem, content_type = "application/problem+json"),
    (status = 503, description = "One question outlasted the time limit, or the corpus kept changing under one", body = Problem, content_type = "application/problem+json"),
))]
pub async fn ask_batch(State(app): State<Arc<App>>, Body(req): Body<AskBatchRequest>) -> Response {
    // Stop asking a tenth before the limit (at most 10 s before): the answers given
    // come back instead of a timeout.
    let margin = (app.timeout / 10).min(std::time::Duration::from_secs(10));
    let cancel = Cancel::within(app.timeout - margin);
    let _ended = cancel.on_drop();
    done(blocking(&app, move |s| s.ask_batch(&req, &cancel)).await)
}

/// Search the index (hybrid, dense or lexical).
#[utoipa::path(post, path = "/v1/search", request_body = SearchRequest, responses(
    (status = 200, description = "The result JSON of `attest search --json`", body = Object),
    (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
))]
pub async fn search(State(app): State<Arc<App>>, Body(req): Body<SearchRequest>) -> Response {
    done(blocking(&app, move |s| s.search(&req)).await)
}

/// Review the indexed documents against a checklist. The review stops at its next
/// research query once the request ended (time limit passed, client gone), freeing its
/// worker.
#[utoipa::path(post, path = "/v1/review", request_body = ReviewRequest, responses(
    (status = 200, description = "The review JSON of `attest review --json`", body = Object),
    (status = 400, description = "Malformed request or checklist", body = Problem, content_type = "application/problem+json"),
    (status = 413, description = "The checklist needs more research queries than serve_max_review_queries", body = Problem, content_type = "application/problem+json"),
    (status = 503, description = "Time limit passed (the review is cancelled)", body = Problem, content_type = "application/problem+json"),
))]
pub async fn review(State(app): State<Arc<App>>, Body(req): Body<ReviewRequest>) -> Response {
    let cancel = Cancel::within(app.timeout);
    let _ended = cancel.on_drop();
    done(blocking(&app, move |s| s.review(req, &cancel)).await)
}

/// A passed check: the gate's report and the thresholds applied.
#[derive(Serialize)]
struct Passed {
    #[serde(flatten)]
    report: crate::evidence::gate::GateResult,
    thresholds: GateThresholds,
}

/// The Evidence Gate for text a caller generated: 200 when it passes, 422 with the
/// violations when it does not.
#[utoipa::path(post, path = "/v1/validate", request_body = ValidateRequest, responses(
    (status = 200, description = "Passed: the gate report (warnings may remain)", body = Object),
    (status = 422, description = "Rejected by the Evidence Gate", body = GateRejection, content_type = "application/problem+json"),
    (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
    (status = 413, description = "Text or body too long", body = Problem, content_type = "application/problem+json"),
))]
pub async fn validate(State(app): State<Arc<App>>, Body(req): Body<ValidateRequest>) -> Response {
    match blocking(&app, move |s| s.validate(&req)).await {
        Err(r) => r,
        Ok(o) => match o.rejection {
            Some(rejection) => problem_json(StatusCode::UNPROCESSABLE_ENTITY, &rejection),
            None => axum::Json(Passed {
                report: o.report,
                thresholds: o.thresholds,
            })
            .into_response(),
        },
    }
}

/// The indexed documents as sources: type (declared or inferred), authority, collection,
/// effective dates, supersessions.
#[utoipa::path(post, path = "/v1/sources", request_body = SourcesRequest, responses(
    (status = 200, description = "The catalog JSON of `attest documents --json`", body = Object),
    (status = 400, description = "Malformed request or filter", body = Problem, content_type = "application/problem+json"),
))]
pub async fn sources(State(app): State<Arc<App>>, Body(req): Body<SourcesRequest>) -> Response {
    done(blocking(&app, move |s| s.sources(&req)).await)
}

/// The requirement sentences of the selected sources, as items (`REQ-S001`, `REQ-P001`).
#[utoipa::path(post, path = "/v1/requirements", request_body = SourcesRequest, responses(
    (status = 200, description = "The list of `attest requirements --json`", body = Object),
    (status = 400, description = "Malformed request or filter", body = Problem, content_type = "application/problem+json"),
))]
pub async fn requirements(
    State(app): State<Arc<App>>,
    Body(req): Body<SourcesRequest>,
) -> Response {
    done(blocking(&app, move |s| s.requirements(&req)).await)
}

/// What the index holds and whether it is healthy.
#[utoipa::path(get, path = "/v1/status", responses(
    (status = 200, description = "The status JSON of `attest status --json`", body = Object),
))]
pub async fn status(State(app): State<Arc<App>>) -> Response {
    blocking(&app, |s| s.status())
        .await
        .map_or_else(|e| e, |s| axum::Json(s).into_response())
}

/// The span of a document view.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SpanQuery {
    /// Start of the span, in bytes of the document text.
    pub start: Option<usize>,
    /// End of the span (exclusive).
    pub end: Option<usize>,
}

/// The stored text of a document around a span, with the span's byte and UTF-16
/// offsets, page and section.
#[utoipa::path(get, path = "/v1/documents/{doc_id}", params(("doc_id" = String, Path, description = "Document id"), SpanQuery), responses(
    (status = 200, description = "The text around the span", body = crate::service::DocumentView),
    (status = 400, description = "Span out of range or not on character boundaries", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such document in the index", body = Problem, content_type = "application/problem+json"),
))]
pub async fn document(
    State(app): State<Arc<App>>,
    Path(doc_id): Path<String>,
    query: Result<Query<SpanQuery>, QueryRejection>,
) -> Response {
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return problem(StatusCode::BAD_REQUEST, "malformed-request", e.body_text()),
    };
    done(blocking(&app, move |s| s.document(&doc_id, q.start, q.end)).await)
}

/// Re-check an evidence item this server served against today's index.
#[utoipa::path(get, path = "/v1/evidence/{evidence_key}", params(("evidence_key" = String, Path, description = "The item's evidence_key")), responses(
    (status = 200, description = "holds, document_changed, quote_changed or document_missing", body = crate::service::EvidenceCheck),
    (status = 404, description = "This server never served that key", body = Problem, content_type = "application/problem+json"),
))]
pub async fn evidence(State(app): State<Arc<App>>, Path(key): Path<String>) -> Response {
    done(blocking(&app, move |s| s.evidence(&key)).await)
}

/// Liveness.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "`{\"status\":\"ok\"}`", body = Object)))]
pub async fn healthz() -> Response {
    axum::Json(serde_json::json!({"status": "ok"})).into_response()
}

/// Prometheus metrics (OpenMetrics text format).
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "OpenMetrics text", body = String, content_type = "application/openmetrics-text")))]
pub async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        app.service.metrics().encode(),
    )
        .into_response()
}

/// This document.
#[utoipa::path(get, path = "/openapi.json", responses((status = 200, description = "The OpenAPI document", body = Object)))]
pub async fn openapi() -> Response {
    axum::Json(ApiDoc::openapi()).into_response()
}

/// Any other path.
pub async fn not_found() -> Response {
    problem(StatusCode::NOT_FOUND, "not-found", "no such endpoint")
}

/// A known path with another method.
pub async fn method_not_allowed() -> Response {
    problem(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "this endpoint does not take that method (see /openapi.json)",
    )
}
