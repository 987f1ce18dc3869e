//! `attest mcp`: the [`Service`] as a Model Context Protocol server over stdio (the
//! official Rust SDK, `rmcp`), for agents. Tools `ask`, `search`, `validate`, `review`
//! and `status` take the HTTP API's request bodies (their JSON schemas refuse unknown
//! parameters) and return the human text plus the JSON as structured content; a
//! request the service refuses is a tool error with the reason. The indexed documents
//! are resources `attest://documents/{doc_id}` (their stored text). Standard output
//! carries protocol messages only; logs go to standard error. Malformed input gets a
//! JSON-RPC parse error ([`stdio`]).

pub mod stdio;

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};

use crate::cancel::Cancel;
use crate::service::{
    AskRequest, ReviewRequest, SearchRequest, Service, ServiceError, SourcesRequest,
    ValidateRequest,
};

/// URI prefix of document resources.
pub const DOCUMENT_URI: &str = "attest://documents/";

/// The `status` tool takes no parameters.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// The MCP server over a shared [`Service`].
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
    tool_router: ToolRouter<Self>,
}

/// A result with the text `text` and `value` as structured content.
fn both(text: String, value: &impl Serialize) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = serde_json::to_value(value).ok();
    r
}

/// Run `f` on the service in a blocking worker; a refusal or failure is a tool error
/// whose text is the reason.
async fn call<T: Send + 'static>(
    service: &Arc<Service>,
    f: impl FnOnce(&Service) -> Result<T, ServiceError> + Send + 'static,
    render: impl FnOnce(&T) -> (String, serde_json::Value),
) -> Result<CallToolResult, McpError> {
    let s = service.clone();
    let out = tokio::task::spawn_blocking(move || f(&s))
        .await
        .map_err(|e| McpError::internal_error(format!("the tool failed: {e}"), None))?;
    Ok(match out {
        Ok(v) => {
            let (text, value) = render(&v);
            both(text, &value)
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    })
}

fn json(v: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

#[tool_router]
impl McpServer {
    /// A server over `service`.
    pub fn new(service: Arc<Service>) -> Self {
        McpServer {
            service,
            tool_router: Self::tool_router(),
        }
    }

    /// Answer a question from the indexed documents: every sentence a verbatim quote
    /// with its citation, or `no_authoritative_evidence` with what is missing.
    #[tool(annotations(read_only_hint = true))]
    async fn ask(
        &self,
        Parameters(req): Parameters<AskRequest>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            move |s| s.ask(&req),
            |a| (crate::render::answer(&a.value), json(&a.value)),
        )
        .await
    }

    /// Search the indexed documents (hybrid dense + BM25 by default); hits with their
    /// byte spans.
    #[tool(annotations(read_only_hint = true))]
    async fn search(
        &self,
        Parameters(req): Parameters<SearchRequest>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            move |s| s.search(&req),
            |r| (crate::render::search_result(&r.value), json(&r.value)),
        )
        .await
    }

    /// The Evidence Gate for a text you wrote: every paragraph and sentence must cite
    /// evidence ids present in `evidence` (or served evidence keys in `evidence_ids`),
    /// and sentences that are not quotes must be supported by what they cite.
    /// `passed: false` comes with the violations and suggested actions.
    #[tool(annotations(read_only_hint = true))]
    async fn validate(
        &self,
        Parameters(req): Parameters<ValidateRequest>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            move |s| s.validate(&req),
            |o| (crate::render::gate(&o.report), json(o)),
        )
        .await
    }

    /// Review the indexed documents against a checklist (inline JSON, the format of
    /// `attest review`): evidence, typed field values with spans, cross-document checks
    /// and a status per requirement.
    #[tool(annotations(read_only_hint = true))]
    async fn review(
        &self,
        Parameters(req): Parameters<ReviewRequest>,
    ) -> Result<CallToolResult, McpError> {
        // Stopped once the call is dropped (cancelled by the client) or over the time limit.
        let cancel = Cancel::within(Duration::from_secs(
            self.service.config().serve_timeout_secs,
        ));
        let _ended = cancel.on_drop();
        call(
            &self.service,
            move |s| s.review(req, &cancel),
            |r| (crate::render::review(&r.value), json(&r.value)),
        )
        .await
    }

    /// The indexed documents as sources: type (declared or inferred), authority,
    /// collection, effective dates, supersessions; filtered like `search`.
    #[tool(annotations(read_only_hint = true))]
    async fn sources(
        &self,
        Parameters(req): Parameters<SourcesRequest>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            move |s| s.sources(&req),
            |c| (crate::render::catalog(&c.value), json(&c.value)),
        )
        .await
    }

    /// The requirement sentences (must, shall, shall not, required, prohibited, may not)
    /// of the selected sources as items: `REQ-S…` statutes and regulations, `REQ-P…`
    /// policy and guidance, with document, section, provision, quote and span.
    #[tool(annotations(read_only_hint = true))]
    async fn requirements(
        &self,
        Parameters(req): Parameters<SourcesRequest>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            move |s| s.requirements(&req),
            |r| {
                let text = crate::render::requirements(&r.value);
                (text, serde_json::json!({ "requirements": json(&r.value) }))
            },
        )
        .await
    }

    /// What the index holds and whether it is healthy.
    #[tool(annotations(read_only_hint = true))]
    async fn status(
        &self,
        Parameters(_): Parameters<NoParams>,
    ) -> Result<CallToolResult, McpError> {
        call(
            &self.service,
            |s| s.status(),
            |st| (crate::render::status(st), json(st)),
        )
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("attest", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Answers and reviews from the user's own indexed documents. Every sentence of an \
                 answer is a verbatim quote with a citation; an answer without evidence says \
                 no_authoritative_evidence. Check any text you write from the evidence with \
                 `validate` before showing it.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let s = self.service.clone();
        let docs = tokio::task::spawn_blocking(move || s.documents())
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let resources = docs
            .value
            .into_iter()
            .map(|d| {
                Resource::new(format!("{DOCUMENT_URI}{}", d.doc_id), d.source)
                    .with_title(d.title)
                    .with_mime_type("text/plain")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{DOCUMENT_URI}{{doc_id}}"), "document")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let missing = || {
            McpError::resource_not_found(
                format!("no such resource: {uri}"),
                Some(serde_json::json!({ "uri": uri })),
            )
        };
        let Some(doc_id) = request.uri.strip_prefix(DOCUMENT_URI).map(str::to_string) else {
            return Err(missing());
        };
        let s = self.service.clone();
        let text = tokio::task::spawn_blocking(move || s.document_text(&doc_id))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        match text {
            Ok(t) => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                t.value,
                request.uri.clone(),
            )
            .with_mime_type("text/plain")])
            .into()),
            Err(ServiceError::NotFound(_)) => Err(missing()),
            Err(e) => Err(McpError::internal_error(e.to_string(), None)),
        }
    }
}

/// Serve `service` over standard input and output until the client closes its end. A
/// message is at most `serve_max_body_bytes` long, like an HTTP body; a longer line or
/// one that is not JSON gets a `-32700` parse error ([`stdio`]).
pub async fn serve_stdio(service: Arc<Service>) -> Result<(), crate::error::Error> {
    use rmcp::ServiceExt;
    let io = |e: String| crate::error::Error::Usage(format!("mcp: {e}"));
    let max_line = usize::try_from(service.config().serve_max_body_bytes).unwrap_or(usize::MAX);
    let (transport, writer) = stdio::Stdio::new(max_line);
    let served = match McpServer::new(service).serve(transport).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| io(e.to_string())),
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(io(e.to_string())),
    };
    // Every reply written before the process ends (the writer ends with its senders).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
    served
}
