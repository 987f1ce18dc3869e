//! [`RawDoc`]s read back from SQLite (`Records::raw_docs_of_file`).

use rusqlite::types::ValueRef;

use super::{lossy, SqliteStore};
use crate::store::export::{RawChunk, RawDoc};
use crate::store::{blob_to_vector, StoreError};

const DOCS: &str = "SELECT id, path, key, source, title, kind, content_hash, mtime_ns, text, \
                    layout, source_meta FROM documents WHERE path = ?1 ORDER BY id";
const CHUNKS: &str = "SELECT c.start, c.end, c.line_start, c.line_end, c.tokens, c.text, \
                      c.vector, c.context, f.kind, f.matched FROM chunks c \
                      LEFT JOIN injection_flags f ON f.chunk = c.id WHERE c.doc = ?1 ORDER BY c.ord";

impl SqliteStore {
    /// The documents of file `path` with their chunks, as stored.
    pub(super) fn raw_docs(&self, path: &str) -> Result<Vec<RawDoc>, StoreError> {
        let mut st = self.conn.prepare_cached(DOCS).map_err(|e| self.err(e))?;
        let docs = st
            .query_map([path], |r| {
                let doc = RawDoc {
                    path: lossy(r.get_ref(1)?),
                    key: lossy(r.get_ref(2)?),
                    source: lossy(r.get_ref(3)?),
                    title: lossy(r.get_ref(4)?),
                    kind: lossy(r.get_ref(5)?),
                    content_hash: lossy(r.get_ref(6)?),
                    mtime_ns: r.get(7)?,
                    text: lossy(r.get_ref(8)?),
                    layout: lossy(r.get_ref(9)?),
                    source_meta: lossy(r.get_ref(10)?),
                    chunks: Vec::new(),
                };
                Ok((r.get::<_, i64>(0)?, doc))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(docs.len());
        for (row, mut doc) in docs {
            doc.chunks = self.raw_chunks(row)?;
            out.push(doc);
        }
        Ok(out)
    }

    fn raw_chunks(&self, doc: i64) -> Result<Vec<RawChunk>, StoreError> {
        let mut st = self.conn.prepare_cached(CHUNKS).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([doc], |r| {
                let flag = match r.get_ref(8)? {
                    ValueRef::Null => None,
                    kind => Some((lossy(kind), lossy(r.get_ref(9)?))),
                };
                Ok(RawChunk {
                    start: r.get(0)?,
                    end: r.get(1)?,
                    lines: (r.get(2)?, r.get(3)?),
                    tokens: r.get(4)?,
                    text: lossy(r.get_ref(5)?),
                    vector: r
                        .get_ref(6)?
                        .as_blob()
                        .ok()
                        .filter(|b| b.len() % 4 == 0)
                        .map(blob_to_vector)
                        .unwrap_or_default(),
                    context: lossy(r.get_ref(7)?),
                    flag,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }
}
