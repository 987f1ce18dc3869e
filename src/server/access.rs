//! Who may call the server: `Host` and `Origin` must name the bound address (or a
//! configured host or origin), which defeats DNS rebinding; with a token, every API
//! request must carry `Authorization: Bearer TOKEN` (compared in constant time). Every
//! refusal and error is an `application/problem+json` body, and every request is counted
//! by route and status code.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;
use tower_http::cors::CorsLayer;

use super::{App, ServerError};

/// The access rules of a running server.
#[derive(Debug, Clone)]
pub struct Rules {
    hosts: Vec<String>,
    origins: Vec<String>,
    token: Option<String>,
}

impl Rules {
    /// Rules for a server bound to `bound`, reachable also as `hosts`, requiring `token`
    /// when one is set, with browser calls allowed from the comma-separated `cors`.
    pub fn new(
        bound: SocketAddr,
        hosts: &[String],
        token: Option<String>,
        cors: &str,
    ) -> Result<Rules, ServerError> {
        let port = bound.port();
        let mut names: Vec<String> = vec![bound.ip().to_string()];
        if bound.is_ipv6() {
            names[0] = format!("[{}]", bound.ip());
        }
        if bound.ip().is_loopback() || bound.ip().is_unspecified() {
            names.push("localhost".into());
        }
        if bound.ip().is_unspecified() {
            // Bound to every interface: loopback clients name it 127.0.0.1 or [::1].
            names.extend(["127.0.0.1".to_string(), "[::1]".to_string()]);
        }
        names.extend(hosts.iter().map(|h| h.trim().to_ascii_lowercase()));
        let mut allowed = Vec::new();
        for n in &names {
            allowed.push(format!("{n}:{port}"));
            if port == 80 {
                allowed.push(n.clone());
            }
        }
        let origins: Vec<String> = cors
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_string())
            .filter(|o| !o.is_empty())
            .collect();
        for o in &origins {
            if HeaderValue::from_str(o).is_err() || !o.contains("://") {
                return Err(ServerError::BadOrigin(o.clone()));
            }
        }
        Ok(Rules {
            hosts: allowed,
            origins,
            token,
        })
    }

    /// The CORS layer of the configured origins (`None`: CORS closed).
    pub fn cors(&self) -> Option<CorsLayer> {
        if self.origins.is_empty() {
            return None;
        }
        let origins: Vec<HeaderValue> = self
            .origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        Some(
            CorsLayer::new()
                .allow_origin(origins)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION]),
        )
    }

    /// Why a request with `headers` to `path` is refused, if it is.
    fn refuse(&self, headers: &HeaderMap, path: &str) -> Option<Response> {
        if headers.get_all(header::HOST).iter().count() > 1 {
            return Some(problem(
                StatusCode::BAD_REQUEST,
                "malformed-request",
                "more than one Host header",
            ));
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        if !host.as_ref().is_some_and(|h| self.hosts.contains(h)) {
            return Some(problem(
                StatusCode::FORBIDDEN,
                "host-not-allowed",
                format!(
                    "Host {:?} is not this server's address ({})",
                    host.unwrap_or_default(),
                    self.hosts.join(", ")
                ),
            ));
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        if let Some(first) = origins.next() {
            // Several Origin headers, or one that is not text, are refused as foreign.
            let origin = match (first.to_str(), origins.next()) {
                (Ok(o), None) => o.trim_end_matches('/'),
                _ => "(unreadable)",
            };
            let own = self.hosts.iter().any(|h| origin == format!("http://{h}"));
            if !own && !self.origins.iter().any(|o| o == origin) {
                return Some(problem(
                    StatusCode::FORBIDDEN,
                    "origin-not-allowed",
                    format!("Origin {origin:?} may not call this server"),
                ));
            }
        }
        if needs_token(path) && !self.authorized(headers) {
            let mut r = problem(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "this server needs Authorization: Bearer TOKEN",
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Some(r);
        }
        None
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(token) = self.token.as_deref().filter(|t| !t.trim().is_empty()) else {
            return true;
        };
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return false; // none, or more than one
        };
        let given = value.to_str().ok().and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(rest)
        });
        match given {
            Some(g) => g.as_bytes().ct_eq(token.as_bytes()).into(),
            None => false,
        }
    }
}

/// Whether `path` needs the token: the API and the metrics (not the health check, the
/// viewer's files or the OpenAPI document, which hold no data).
fn needs_token(path: &str) -> bool {
    path.starts_with("/v1/") || path == "/metrics"
}

/// The access check and request count around every request.
pub async fn check(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("other", |m| m.as_str())
        .to_string();
    let response = match app.access.refuse(req.headers(), req.uri().path()) {
        Some(refused) => refused,
        None => next.run(req).await,
    };
    app.service
        .metrics()
        .request(&route, response.status().as_u16());
    response
}

/// An `application/problem+json` response (RFC 9457) of problem type
/// `urn:attest:problem:KIND`.
pub fn problem(status: StatusCode, kind: &str, detail: impl Into<String>) -> Response {
    let body = serde_json::json!({
        "type": format!("urn:attest:problem:{kind}"),
        "title": status.canonical_reason().unwrap_or("error"),
        "status": status.as_u16(),
        "detail": detail.into(),
    });
    problem_json(status, &body)
}

/// `body` as an `application/problem+json` response with `status`.
pub fn problem_json(status: StatusCode, body: &impl serde::Serialize) -> Response {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "{}".into());
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        )],
        text,
    )
        .into_response()
}
