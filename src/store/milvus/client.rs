//! Small blocking wrapper over `milvus-sdk-rust` 3.0.3 (`milvus::v2`), tested against
//! milvus-lite 3.2.2.
//!
//! Every call runs its future on the connection's own multi-thread tokio runtime and waits
//! for the result over a channel, so it works from plain threads, from `spawn_blocking`
//! threads, and (blocking the caller's worker) even from inside an async task, without the
//! "Cannot start a runtime from within a runtime" panic.

use milvus::v2::prelude::*;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::result::Result;
use std::sync::Mutex;
use std::time::Duration;

/// Rows requested per query page are sized so that one page stays below this many bytes
/// (tonic's default receive limit is 4 MiB; a page that still exceeds it is retried smaller).
const QUERY_PAGE_BYTES: usize = 3 * 1024 * 1024;
/// The primary key of every collection searched (only it is asked back: milvus-lite
/// otherwise returns every field of every hit, past gRPC's 4 MiB message limit).
const SEARCH_PK: &str = "id";
/// Milvus's largest query window (and the SDK's largest iterator batch).
const MAX_QUERY_BATCH: usize = 16_384;
/// Upserts are split into requests of at most about this many (estimated) bytes.
const UPSERT_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// HNSW ef for the retry of a filtered search that came back short (Milvus's maximum).
const EXHAUSTIVE_EF: usize = 32_768;
/// On milvus-lite, flush a collection once this many upserted rows are unflushed: it
/// searches its in-memory table by brute force (~0.5 s per search at 20k rows), flushed
/// segments through their indexes (~30-50 ms).
const LITE_FLUSH_ROWS: usize = 2_000;

/// A field of a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// INT64 primary key (not auto-generated).
    Int64Pk(&'static str),
    /// VARCHAR primary key with a maximum length in bytes.
    VarCharPk(&'static str, u32),
    /// INT64 scalar.
    Int64(&'static str),
    /// VARCHAR scalar with a maximum length in bytes.
    VarChar(&'static str, u32),
    /// VARCHAR (max bytes) fed to a BM25 function (standard tokenizer) whose output is the
    /// sparse field named second.
    Bm25Text(&'static str, u32, &'static str),
    /// FLOAT_VECTOR with the given dimension.
    FloatVector(&'static str, u32),
}

/// A blocking connection to a Milvus server.
pub struct Conn {
    rt: Option<tokio::runtime::Runtime>,
    client: ClientV2,
    url: String,
    /// The server reports itself as milvus-lite.
    lite: bool,
    /// Rows upserted per collection since its last flush (milvus-lite only).
    unflushed: Mutex<HashMap<String, usize>>,
}

// Conn is shared between threads by callers; make sure it stays that way.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Conn>();
};

impl Drop for Conn {
    fn drop(&mut self) {
        // Dropping a runtime in an async context panics; shutting it down in the
        // background never blocks and never panics.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Makes a Milvus string literal: double-quoted, with `\`, `"`, `'`, newline, carriage
/// return and tab escaped, e.g. `a"b` becomes `"a\"b"`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Formats an SDK error as "milvus OP on collection "NAME": ERROR".
fn fail(op: &str, name: &str, e: impl std::fmt::Display) -> String {
    format!("milvus {op} on collection {name:?}: {e}")
}

impl Conn {
    /// Connects to `url` (e.g. `http://127.0.0.1:19530`), waiting at most about 10 s for the
    /// server to answer.
    pub fn connect(url: &str) -> Result<Conn, String> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("milvus-conn")
            .enable_all()
            .build()
            .map_err(|e| format!("milvus connect {url}: cannot start a tokio runtime: {e}"))?;
        let config = ConnectConfig::new()
            .uri(url)
            .connect_timeout(Duration::from_secs(10))
            .rpc_timeout(Duration::from_secs(300))
            .telemetry(TelemetryConfig::new().enabled(false));
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        rt.spawn(async move {
            let connect = ClientV2::new(&config);
            let r = tokio::time::timeout(Duration::from_secs(15), connect).await;
            let _ = tx.send(r);
        });
        let client = match rx.recv() {
            Ok(Ok(Ok(client))) => client,
            other => {
                // Never drop a runtime in place: that panics inside an async context.
                rt.shutdown_background();
                return Err(match other {
                    Ok(Ok(Err(e))) => format!("milvus connect {url}: {e}"),
                    Ok(_) => format!("milvus connect {url}: timed out"),
                    Err(_) => format!("milvus connect {url}: runtime stopped"),
                });
            }
        };
        let mut conn = Conn {
            rt: Some(rt),
            client,
            url: url.to_owned(),
            lite: false,
            unflushed: Mutex::new(HashMap::new()),
        };
        let client = conn.client.clone();
        let version = conn.run("server_version", "*", async move {
            let req = GetServerVersionRequest::builder()
                .build()
                .map_err(|e| e.to_string())?;
            let resp = client
                .server_version(req)
                .await
                .map_err(|e| e.to_string())?;
            Ok(resp.version().to_owned())
        });
        conn.lite = version.is_ok_and(|v| v.starts_with("milvus_lite"));
        Ok(conn)
    }

    /// Runs `fut` on the connection's runtime and blocks until it finishes.
    fn run<T, F>(&self, op: &str, name: &str, fut: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, String>> + Send + 'static,
    {
        let rt = self
            .rt
            .as_ref()
            .ok_or_else(|| fail(op, name, "connection closed"))?;
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| fail(op, name, "runtime stopped or task panicked"))?
    }

    /// Create the collection when absent (FloatVector fields get an HNSW COSINE index with
    /// M=16, efConstruction=200; a Bm25Text's sparse output gets SPARSE_INVERTED_INDEX with
    /// BM25 metric), then load it (load also when it already exists; Milvus leaves
    /// collections released after a restart). Returns true when it created it.
    pub fn ensure_collection(&self, name: &str, fields: &[Field]) -> Result<bool, String> {
        let (schema, indexes) = build_schema(fields).map_err(|e| fail("create", name, e))?;
        let (client, n) = (self.client.clone(), name.to_owned());
        self.run("ensure_collection", name, async move {
            let created = if has_collection(&client, &n).await? {
                false
            } else {
                let req = CreateCollectionRequest::builder()
                    .collection_name(n.as_str())
                    .schema(schema)
                    .index_params(indexes)
                    .build()
                    .map_err(|e| fail("create", &n, e))?;
                match client.create_collection(req).await {
                    Ok(_) => true,
                    Err(e) => {
                        // Lost a race with another creator: fine once its collection
                        // exists (it may still be creating it).
                        if !appears(&client, &n).await {
                            return Err(fail("create", &n, e));
                        }
                        false
                    }
                }
            };
            let req = LoadCollectionRequest::builder()
                .collection_name(n.as_str())
                .build()
                .map_err(|e| fail("load", &n, e))?;
            client
                .load_collection(req)
                .await
                .map_err(|e| fail("load", &n, e))?;
            Ok(created)
        })
    }

    /// Names of all collections in the default database.
    pub fn list_collections(&self) -> Result<Vec<String>, String> {
        let (client, url) = (self.client.clone(), self.url.clone());
        self.run("list_collections", "*", async move {
            let err = |e: milvus::v2::error::Error| fail("list_collections", "*", e);
            let req = ListCollectionsRequest::builder().build().map_err(err)?;
            match client.list_collections(req).await {
                Ok(resp) => Ok(resp.collection_names().to_vec()),
                // milvus-lite sends names without ids/timestamps, which the v2 response
                // check rejects; the v1 client reads the names only.
                Err(milvus::v2::error::Error::MalformedResponse(_)) => {
                    let v1_err = |e: milvus::error::Error| fail("list_collections", "*", e);
                    let v1 = milvus::client::Client::new(url).await.map_err(v1_err)?;
                    v1.list_collections().await.map_err(v1_err)
                }
                Err(e) => Err(err(e)),
            }
        })
    }

    /// Inserts or replaces rows (JSON objects keyed by field name; FloatVector fields as
    /// arrays of numbers; BM25 sparse outputs omitted). Large inputs are sent in several
    /// requests of at most about 16 MB each.
    pub fn upsert(&self, name: &str, rows: Vec<Value>) -> Result<(), String> {
        let count = rows.len();
        let (client, n) = (self.client.clone(), name.to_owned());
        self.run("upsert", name, async move {
            for chunk in split_by_size(rows, UPSERT_REQUEST_BYTES) {
                let insert = InsertRequest::builder()
                    .collection_name(n.as_str())
                    .rows(chunk)
                    .build()
                    .map_err(|e| fail("upsert", &n, e))?;
                let req = UpsertRequest::builder()
                    .insert(insert)
                    .build()
                    .map_err(|e| fail("upsert", &n, e))?;
                client
                    .upsert(req)
                    .await
                    .map_err(|e| fail("upsert", &n, e))?;
            }
            Ok(())
        })?;
        self.maybe_flush(name, count)
    }

    /// On milvus-lite, flushes `name` once enough upserted rows are pending.
    fn maybe_flush(&self, name: &str, added: usize) -> Result<(), String> {
        if !self.lite {
            return Ok(());
        }
        let due = {
            let mut map = self.unflushed.lock().unwrap_or_else(|p| p.into_inner());
            let pending = map.entry(name.to_owned()).or_insert(0);
            *pending += added;
            let due = *pending >= LITE_FLUSH_ROWS;
            if due {
                *pending = 0;
            }
            due
        };
        if !due {
            return Ok(());
        }
        self.flush(name)
    }

    /// On milvus-lite, flushes every collection with upserted rows pending.
    pub fn flush_pending(&self) -> Result<(), String> {
        let names: Vec<String> = {
            let mut map = self.unflushed.lock().unwrap_or_else(|p| p.into_inner());
            map.iter_mut()
                .filter(|(_, pending)| **pending > 0)
                .map(|(name, pending)| {
                    *pending = 0;
                    name.clone()
                })
                .collect()
        };
        names.iter().try_for_each(|n| self.flush(n))
    }

    fn flush(&self, name: &str) -> Result<(), String> {
        let (client, n) = (self.client.clone(), name.to_owned());
        self.run("flush", name, async move {
            let req = FlushRequest::builder()
                .collection_names([n.as_str()])
                .build()
                .map_err(|e| fail("flush", &n, e))?;
            client.flush(req).await.map_err(|e| fail("flush", &n, e))?;
            Ok(())
        })
    }

    /// Deletes every row matching `filter` (a Milvus boolean expression such as
    /// `id in [1, 2]`; build string literals with [`quote`]). An empty filter is refused.
    pub fn delete(&self, name: &str, filter: &str) -> Result<(), String> {
        if filter.trim().is_empty() {
            return Err(fail(
                "delete",
                name,
                "empty filter (refusing to delete everything)",
            ));
        }
        let (client, n, f) = (self.client.clone(), name.to_owned(), filter.to_owned());
        self.run("delete", name, async move {
            let req = DeleteRequest::builder()
                .collection_name(n.as_str())
                .filter(f)
                .build()
                .map_err(|e| fail("delete", &n, e))?;
            client
                .delete(req)
                .await
                .map_err(|e| fail("delete", &n, e))?;
            Ok(())
        })
    }

    /// Every row matching `filter` (Strong consistency; empty filter = all rows), with
    /// `fields`; returns ALL rows, in primary-key order, even when there are more than
    /// Milvus's 16384 query window, as JSON objects keyed by field name (FloatVector fields
    /// as arrays of numbers; the primary key is always included). Pages by primary key
    /// (`pk > last`, at most 3 MB per page, smaller when a page still exceeds the 4 MB gRPC
    /// receive limit); the SDK's QueryIterator is unusable on milvus-lite, which reports
    /// collection id 0.
    pub fn query(
        &self,
        name: &str,
        filter: &str,
        fields: &[&str],
    ) -> Result<Vec<Map<String, Value>>, String> {
        self.query_first(name, filter, fields, usize::MAX)
    }

    /// [`Conn::query`], stopping after the first `max` rows in primary-key order.
    pub fn query_first(
        &self,
        name: &str,
        filter: &str,
        fields: &[&str],
        max: usize,
    ) -> Result<Vec<Map<String, Value>>, String> {
        let (client, n, f) = (self.client.clone(), name.to_owned(), filter.to_owned());
        let fields: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        self.run("query", name, async move {
            let plan = query_plan(&client, &n, &fields).await?;
            query_all(&client, &n, &f, &fields, plan, max).await
        })
    }

    /// Number of rows matching `filter` (`count(*)`, Strong consistency; empty = all).
    pub fn count(&self, name: &str, filter: &str) -> Result<u64, String> {
        let (client, n, f) = (self.client.clone(), name.to_owned(), filter.to_owned());
        self.run("count", name, async move {
            let err = |e: milvus::v2::error::Error| fail("count", &n, e);
            let req = QueryRequest::builder()
                .collection_name(n.as_str())
                .filter(f)
                .output_fields(["count(*)"])
                .consistency_level(ConsistencyLevel::Strong)
                .build()
                .map_err(err)?;
            let resp = client.query(req).await.map_err(err)?;
            let mut rows = resp.results().rows().map_err(err)?;
            let row = rows
                .next()
                .ok_or_else(|| fail("count", &n, "no count(*) row"))?;
            let c = row.get_i64("count(*)").map_err(err)?;
            u64::try_from(c).map_err(|_| fail("count", &n, format!("negative count {c}")))
        })
    }

    /// Top-`limit` by cosine for `vector` on FloatVector field `field` among rows matching
    /// `filter` (None = all), Strong consistency, with `ef` as the HNSW search param ef
    /// (raised to `limit` if smaller): (int64 primary key, similarity), best first. A
    /// filtered search returning fewer than `limit` hits while more rows match the filter
    /// is repeated once with ef = 32768.
    pub fn search_dense(
        &self,
        name: &str,
        field: &str,
        vector: &[f32],
        limit: usize,
        ef: usize,
        filter: Option<&str>,
    ) -> Result<Vec<(i64, f32)>, String> {
        let search = |ef: usize| {
            let vectors = SearchVectors::Float(vec![vector.to_vec()]);
            let params = HashMap::from([("ef".to_owned(), ef.max(limit).to_string())]);
            self.search(name, field, vectors, limit, filter, params)
        };
        let hits = search(ef)?;
        // A selective filter can starve a filtered HNSW walk (milvus-lite's FAISS HNSW does
        // not fall back to brute force as Milvus's Knowhere does): when fewer than `limit`
        // hits came back but more rows match, search again with an exhaustive ef.
        let Some(f) = filter.filter(|f| !f.trim().is_empty() && hits.len() < limit) else {
            return Ok(hits);
        };
        if self.count(name, f)? as usize <= hits.len() {
            return Ok(hits);
        }
        search(EXHAUSTIVE_EF.max(ef))
    }

    /// BM25 top-`limit` for `text` on the sparse field `field` (SearchVectors::EmbeddedText):
    /// (int64 pk, score as a positive number, higher better), best first. milvus-lite
    /// returns negated BM25 scores, so the absolute value is reported.
    pub fn search_bm25(
        &self,
        name: &str,
        field: &str,
        text: &str,
        limit: usize,
        filter: Option<&str>,
    ) -> Result<Vec<(i64, f32)>, String> {
        let vectors = SearchVectors::EmbeddedText(vec![text.to_owned()]);
        let mut hits = self.search(name, field, vectors, limit, filter, HashMap::new())?;
        for hit in hits.iter_mut() {
            hit.1 = hit.1.abs();
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(hits)
    }

    /// One ANN search on `field`, returning (int64 pk, raw score) in server order.
    fn search(
        &self,
        name: &str,
        field: &str,
        vectors: SearchVectors,
        limit: usize,
        filter: Option<&str>,
        params: HashMap<String, String>,
    ) -> Result<Vec<(i64, f32)>, String> {
        let (client, n) = (self.client.clone(), name.to_owned());
        let mut b = SearchRequest::builder()
            .collection_name(name)
            .vector_field(field)
            .vectors(vectors)
            .limit(limit.max(1) as i64)
            .output_fields([SEARCH_PK])
            .extra_params(params)
            .consistency_level(ConsistencyLevel::Strong);
        if let Some(f) = filter.filter(|f| !f.trim().is_empty()) {
            b = b.filter(f);
        }
        let req = b.build().map_err(|e| fail("search", name, e))?;
        self.run("search", name, async move {
            let resp = client
                .search(req)
                .await
                .map_err(|e| fail("search", &n, e))?;
            let Some(result) = resp.results().get_results().first() else {
                return Ok(Vec::new());
            };
            let Ids::Int64(ids) = result.get_ids() else {
                return Err(fail("search", &n, "primary key is not INT64"));
            };
            let scores = result.get_scores();
            if scores.len() != ids.len() {
                return Err(fail("search", &n, "ids and scores differ in length"));
            }
            Ok(ids.iter().copied().zip(scores.iter().copied()).collect())
        })
    }
}

/// Whether the collection exists.
async fn has_collection(client: &ClientV2, name: &str) -> Result<bool, String> {
    let req = HasCollectionRequest::builder()
        .collection_name(name)
        .build()
        .map_err(|e| fail("has_collection", name, e))?;
    let resp = client
        .has_collection(req)
        .await
        .map_err(|e| fail("has_collection", name, e))?;
    Ok(resp.exists())
}

/// The schema and index parameters for `fields`.
fn build_schema(fields: &[Field]) -> Result<(CollectionSchema, Vec<IndexParam>), String> {
    let pks = fields
        .iter()
        .filter(|f| matches!(f, Field::Int64Pk(_) | Field::VarCharPk(..)))
        .count();
    if pks != 1 {
        return Err(format!("need exactly one primary-key field, got {pks}"));
    }
    if !fields
        .iter()
        .any(|f| matches!(f, Field::FloatVector(..) | Field::Bm25Text(..)))
    {
        return Err("Milvus needs at least one vector field".into());
    }
    let mut schema = CollectionSchema::new();
    let mut indexes = Vec::new();
    for f in fields {
        let fs = FieldSchema::new();
        schema = match *f {
            Field::Int64Pk(n) => schema.add_field(
                fs.name(n)
                    .data_type(DataType::Int64)
                    .primary_key(true)
                    .auto_id(false),
            ),
            Field::VarCharPk(n, max) => schema.add_field(
                fs.name(n)
                    .data_type(DataType::VarChar)
                    .max_length(max)
                    .primary_key(true),
            ),
            Field::Int64(n) => schema.add_field(fs.name(n).data_type(DataType::Int64)),
            Field::VarChar(n, max) => {
                schema.add_field(fs.name(n).data_type(DataType::VarChar).max_length(max))
            }
            Field::Bm25Text(n, max, sparse) => {
                indexes.push(
                    IndexParam::new()
                        .field_name(sparse)
                        .index_type(IndexType::SparseInvertedIndex)
                        .metric_type(MetricType::Bm25),
                );
                bm25_fields(schema, n, max, sparse)
            }
            Field::FloatVector(n, dim) => {
                indexes.push(hnsw_index(n));
                schema.add_field(fs.name(n).data_type(DataType::FloatVector).dimension(dim))
            }
        };
    }
    Ok((schema, indexes))
}

/// Adds the analysed text field, its sparse output field and the BM25 function.
fn bm25_fields(schema: CollectionSchema, text: &str, max: u32, sparse: &str) -> CollectionSchema {
    let text_field = FieldSchema::new()
        .name(text)
        .data_type(DataType::VarChar)
        .max_length(max)
        .enable_analyzer(true)
        .enable_match(true)
        .analyzer_params(serde_json::json!({"tokenizer": "standard"}));
    let sparse_field = FieldSchema::new()
        .name(sparse)
        .data_type(DataType::SparseFloatVector);
    let function = Function::new()
        .name(format!("{text}_bm25"))
        .function_type(FunctionType::Bm25)
        .input_fields([text])
        .output_fields([sparse]);
    schema
        .add_field(text_field)
        .add_field(sparse_field)
        .add_function(function)
}

/// HNSW/COSINE index with M=16, efConstruction=200. The build parameters go both as flat
/// pairs (what Milvus proper reads) and as the JSON `params` pair (the only form
/// milvus-lite reads; Milvus proper merges it into the same map).
fn hnsw_index(field: &str) -> IndexParam {
    let params = HashMap::from([
        ("M".to_owned(), "16".to_owned()),
        ("efConstruction".to_owned(), "200".to_owned()),
        (
            "params".to_owned(),
            r#"{"M":"16","efConstruction":"200"}"#.to_owned(),
        ),
    ]);
    IndexParam::new()
        .field_name(field)
        .index_type(IndexType::Hnsw)
        .metric_type(MetricType::Cosine)
        .extra_params(params)
}

/// How to page through a collection: its primary key and a first page size.
struct QueryPlan {
    pk: String,
    pk_is_int: bool,
    batch: usize,
}

/// The primary key and a first page size from the schema: fixed-size fields at their size,
/// VARCHARs guessed at 256 bytes (a page that turns out too large is retried smaller).
async fn query_plan(client: &ClientV2, name: &str, fields: &[String]) -> Result<QueryPlan, String> {
    let req = DescribeCollectionRequest::builder()
        .collection_name(name)
        .build()
        .map_err(|e| fail("describe", name, e))?;
    let resp = client
        .describe_collection(req)
        .await
        .map_err(|e| fail("describe", name, e))?;
    let all = fields.is_empty() || fields.iter().any(|f| f == "*");
    let (mut row_bytes, mut pk) = (16usize, None);
    for f in resp.description().get_schema().get_fields() {
        if f.is_primary_key() {
            pk = Some((
                f.get_name().to_owned(),
                f.get_data_type() == DataType::Int64,
            ));
        } else if !all && !fields.iter().any(|w| w == f.get_name()) {
            continue;
        }
        row_bytes += 16
            + match f.get_data_type() {
                DataType::FloatVector => 4 * f.get_dimension() as usize,
                DataType::VarChar => 256,
                DataType::SparseFloatVector => 4096,
                _ => 8,
            };
    }
    let (pk, pk_is_int) = pk.ok_or_else(|| fail("query", name, "schema has no primary key"))?;
    let batch = (QUERY_PAGE_BYTES / row_bytes).clamp(1, MAX_QUERY_BATCH);
    Ok(QueryPlan {
        pk,
        pk_is_int,
        batch,
    })
}

/// Whether `e` is the gRPC client refusing a response larger than its receive limit.
fn too_large(e: &milvus::v2::error::Error) -> bool {
    let s = e.to_string();
    s.contains("message length too large") || s.contains("OutOfRange")
}

/// `filter` restricted to primary keys after `last` (the previous page's last key).
fn page_filter(plan: &QueryPlan, last: &Option<Value>, filter: &str) -> String {
    let cursor = match last {
        None => return filter.to_owned(),
        Some(Value::String(s)) => format!("{} > {}", plan.pk, quote(s)),
        Some(v) => format!("{} > {}", plan.pk, v),
    };
    if filter.trim().is_empty() {
        cursor
    } else {
        format!("{cursor} and ({filter})")
    }
}

/// Whether primary key `b` sorts strictly after `a` (Milvus orders VARCHAR keys bytewise).
fn pk_after(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => b > a,
        _ => matches!((a.as_i64(), b.as_i64()), (Some(a), Some(b)) if b > a),
    }
}

/// One page of at most `batch` rows after `last`, in primary-key order (the `iterator`
/// query parameter, as pymilvus's QueryIterator sends it, makes both Milvus and
/// milvus-lite sort by primary key before applying the limit).
#[allow(clippy::result_large_err)] // the SDK's error type
async fn query_page(
    client: &ClientV2,
    name: &str,
    filter: String,
    fields: &[String],
    batch: usize,
) -> milvus::v2::error::Result<Vec<Map<String, Value>>> {
    let params = HashMap::from([
        ("iterator".to_owned(), "true".to_owned()),
        ("reduce_stop_for_best".to_owned(), "false".to_owned()),
    ]);
    let req = QueryRequest::builder()
        .collection_name(name)
        .filter(filter)
        .output_fields(fields.iter().cloned())
        .limit(batch as i64)
        .extra_params(params)
        .consistency_level(ConsistencyLevel::Strong)
        .build()?;
    let resp = client.query(req).await?;
    let rows = resp.results().rows()?;
    rows.map(|row| row.to_entity_row()).collect()
}

/// The first `max` rows of a query, paged by primary key (`pk > last`); a page too large
/// for the gRPC receive limit is retried with a quarter of the rows.
async fn query_all(
    client: &ClientV2,
    name: &str,
    filter: &str,
    fields: &[String],
    mut plan: QueryPlan,
    max: usize,
) -> Result<Vec<Map<String, Value>>, String> {
    let mut out: Vec<Map<String, Value>> = Vec::new();
    let mut last: Option<Value> = None;
    while out.len() < max {
        let f = page_filter(&plan, &last, filter);
        let batch = plan.batch.min(max - out.len());
        let page = match query_page(client, name, f, fields, batch).await {
            Ok(page) => page,
            Err(e) if batch > 1 && too_large(&e) => {
                plan.batch = (batch / 4).max(1);
                continue;
            }
            Err(e) => return Err(fail("query", name, e)),
        };
        let full = page.len() >= batch;
        for row in page {
            let pk = row.get(&plan.pk).cloned();
            let pk = pk.ok_or_else(|| fail("query", name, "row without primary key"))?;
            if pk.is_number() != plan.pk_is_int || last.as_ref().is_some_and(|l| !pk_after(l, &pk))
            {
                return Err(fail(
                    "query",
                    name,
                    "server did not return rows in primary-key order",
                ));
            }
            last = Some(pk);
            out.push(row);
        }
        if !full {
            break;
        }
    }
    Ok(out)
}

/// Whether collection `name` exists within about [`CREATE_WAIT`] (polled), for a creator
/// that lost a race to another one still creating it.
async fn appears(client: &ClientV2, name: &str) -> bool {
    let deadline = tokio::time::Instant::now() + CREATE_WAIT;
    loop {
        if has_collection(client, name).await.unwrap_or(false) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// How long a creator that lost a race waits for the winner's collection.
const CREATE_WAIT: Duration = Duration::from_secs(30);

/// A rough serialized size of a JSON value (numbers count 8 bytes).
fn approx_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 8,
        Value::Array(a) => a.iter().map(approx_bytes).sum::<usize>() + 8,
        Value::Object(m) => {
            m.iter()
                .map(|(k, v)| k.len() + approx_bytes(v))
                .sum::<usize>()
                + 8
        }
        _ => 8,
    }
}

/// Splits rows into consecutive chunks of at most about `limit` estimated bytes each.
fn split_by_size(rows: Vec<Value>, limit: usize) -> Vec<Vec<Value>> {
    let mut chunks = Vec::new();
    let mut cur = Vec::new();
    let mut size = 0;
    for row in rows {
        let n = approx_bytes(&row);
        if !cur.is_empty() && size + n > limit {
            chunks.push(std::mem::take(&mut cur));
            size = 0;
        }
        size += n;
        cur.push(row);
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    chunks
}
