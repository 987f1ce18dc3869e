//! An open index: configuration, the SQLite store, the bi-encoder and the dense index,
//! as every command that reads or writes the corpus needs them together.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::config::BackendKind;
use crate::config::Config;
use crate::config::EmbedPrecision;
use crate::error::Error;
use crate::index::{Dense, IndexHealth};
use crate::models::cross::{find_cross_encoder, CrossEncoder, Rerank};
use crate::models::generate::{Generate, GgufGenerator};
use crate::models::{Embed, MiniLm};
use crate::store::{DocFilter, MilvusStore, MilvusTarget, Store, StoreError, Writer};

/// How a command uses the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only: never creates an index; one that cannot be written is opened read-only.
    Read,
    /// Create or update the index; a read-only index is an error.
    Write,
    /// Write, without loading the dense index first: `ingest --repair` rewrites damaged
    /// vectors before the dense index is built from them.
    Repair,
}

impl From<bool> for Access {
    /// `true` (create) is [`Access::Write`], `false` is [`Access::Read`].
    fn from(create: bool) -> Self {
        if create {
            Access::Write
        } else {
            Access::Read
        }
    }
}

/// An index opened with the model it was built with.
pub struct Engine {
    cfg: Config,
    store: Store,
    embedder: Arc<dyn Embed>,
    dense: Option<Arc<Dense>>,
    /// The corpus version the dense index was loaded at.
    dense_version: u64,
    reranker: Option<Arc<dyn Rerank>>,
    generator: Option<Arc<Mutex<dyn Generate>>>,
}

impl Engine {
    /// Open the index in `cfg.index` for `embedder` (`true`/[`Access::Write`]: creating
    /// it when absent). Fails when the index was built with another model or dimension,
    /// or holds a damaged vector (except for [`Access::Repair`]).
    pub fn open(
        cfg: Config,
        embedder: Arc<dyn Embed>,
        access: impl Into<Access>,
    ) -> Result<Self, Error> {
        let access = access.into();
        let create = access != Access::Read;
        cfg.validate()?;
        let store = open_store(&cfg, embedder.model_id(), embedder.dim(), create)?;
        let mut e = Engine {
            cfg,
            store,
            embedder,
            dense: None,
            dense_version: 0,
            reranker: None,
            generator: None,
        };
        if access == Access::Repair {
            e.dense = Some(Arc::new(Dense::empty()));
        } else {
            e.refresh_dense(false)?;
        }
        Ok(e)
    }

    /// Open with the bundled all-MiniLM-L6-v2 bi-encoder (located as in
    /// [`crate::models::locate`]).
    pub fn open_with_default_model(cfg: Config, access: impl Into<Access>) -> Result<Self, Error> {
        let model = bi_encoder(&cfg)?;
        let reranker: Option<Arc<dyn Rerank>> = match &cfg.reranker_dir {
            Some(dir) => Some(Arc::new(CrossEncoder::load(dir)?)),
            None => match find_cross_encoder() {
                Some(dir) => match CrossEncoder::load(&dir) {
                    Ok(ce) => Some(Arc::new(ce)),
                    Err(e) => {
                        tracing::warn!("ignoring cross-encoder {}: {e}", dir.display());
                        None
                    }
                },
                None => None,
            },
        };
        let mut engine = Self::open(cfg, Arc::new(model), access)?;
        engine.reranker = reranker;
        Ok(engine)
    }

    /// Use `reranker` to rerank multi-query retrievals (`None` keeps the fused order).
    pub fn set_reranker(&mut self, reranker: Option<Arc<dyn Rerank>>) {
        self.reranker = reranker;
    }

    /// The cross-encoder, when one is installed.
    pub fn reranker(&self) -> Option<&dyn Rerank> {
        self.reranker.as_deref()
    }

    /// Use `generator` to phrase answers (`None`: answers are extractive).
    pub fn set_generator(&mut self, generator: Option<Arc<Mutex<dyn Generate>>>) {
        self.generator = generator;
    }

    /// Load the GGUF generator the configuration names (`generator`), if any; commands
    /// that answer questions call this, the others never pay for it.
    pub fn load_generator(&mut self) -> Result<(), Error> {
        if let Some(path) = &self.cfg.generator {
            self.generator = Some(Arc::new(Mutex::new(GgufGenerator::load(path)?)));
        }
        Ok(())
    }

    /// The generator, when one is configured.
    pub fn generator(&self) -> Option<&Arc<Mutex<dyn Generate>>> {
        self.generator.as_ref()
    }

    /// Reload the dense index from the store. With `persist`, first bring the HNSW file
    /// up to date (insert new chunks, or rebuild) and save it.
    pub fn refresh_dense(&mut self, persist: bool) -> Result<(), Error> {
        self.refresh_dense_with(persist, false)
    }

    /// [`Engine::refresh_dense`]; with `rebuild`, the HNSW file is rebuilt from the stored
    /// vectors rather than updated (repair).
    pub fn refresh_dense_with(&mut self, persist: bool, rebuild: bool) -> Result<(), Error> {
        let dim = self.embedder.dim();
        if self.store.searches_dense() {
            self.dense = Some(Arc::new(Dense::empty()));
            self.dense_version = self.store.corpus_version()?;
            return Ok(());
        }
        if persist {
            let updated = Dense::update(&self.store, &self.cfg.index, &self.cfg, dim, rebuild)?;
            let version = self.store.corpus_version()?;
            let dense = Dense::after_update(
                &self.store,
                &self.cfg.index,
                &self.cfg,
                dim,
                updated,
                self.dense.as_deref(),
            )?;
            self.dense = Some(Arc::new(dense));
            self.dense_version = version;
            return Ok(());
        }
        let version = self.store.corpus_version()?;
        self.dense = Some(Arc::new(Dense::open(
            &self.store,
            &self.cfg.index,
            &self.cfg,
            dim,
            persist,
        )?));
        self.dense_version = version;
        Ok(())
    }

    /// Another read-only engine on the same index: its own database connection, sharing
    /// this one's models and dense index (a server keeps one per worker).
    pub fn reader(&self) -> Result<Engine, Error> {
        let store = open_store(
            &self.cfg,
            self.embedder.model_id(),
            self.embedder.dim(),
            false,
        )?;
        Ok(Engine {
            cfg: self.cfg.clone(),
            store,
            embedder: self.embedder.clone(),
            dense: self.dense.clone(),
            dense_version: self.dense_version,
            reranker: self.reranker.clone(),
            generator: self.generator.clone(),
        })
    }

    /// The corpus version the dense index was loaded at (it may lag the store's
    /// [`Store::corpus_version`] while another process ingests).
    pub fn dense_version(&self) -> u64 {
        self.dense_version
    }

    /// The dense index, shared.
    pub fn dense_arc(&self) -> Option<Arc<Dense>> {
        self.dense.clone()
    }

    /// Use `dense`, loaded at corpus version `version` by another engine on this index.
    pub fn set_dense(&mut self, dense: Arc<Dense>, version: u64) {
        self.dense = Some(dense);
        self.dense_version = version;
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.cfg.index
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store, writable.
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// The bi-encoder.
    pub fn embedder(&self) -> &dyn Embed {
        self.embedder.as_ref()
    }

    /// Use `embedder` (a cache in front of the same model): it must have the model id and
    /// dimension the index was built with.
    pub fn set_embedder(&mut self, embedder: Arc<dyn Embed>) -> Result<(), Error> {
        if embedder.model_id() != self.embedder.model_id() || embedder.dim() != self.embedder.dim()
        {
            return Err(Error::Usage(format!(
                "embedder {} ({}-d) is not the index's {} ({}-d)",
                embedder.model_id(),
                embedder.dim(),
                self.embedder.model_id(),
                self.embedder.dim()
            )));
        }
        self.embedder = embedder;
        Ok(())
    }

    /// The bi-encoder, shared.
    pub fn embedder_arc(&self) -> Arc<dyn Embed> {
        self.embedder.clone()
    }

    /// Embed one query.
    pub fn embed_query(&self, q: &str) -> Result<Vec<f32>, Error> {
        Ok(self.embedder.embed(&[q])?.pop().unwrap_or_default())
    }

    fn dense(&self) -> &Dense {
        self.dense
            .as_ref()
            .expect("dense index opened in Engine::open")
    }

    /// Top-`n` chunks by cosine similarity with `v`.
    pub fn dense_search(&self, v: &[f32], n: usize) -> Result<Vec<(i64, f32)>, Error> {
        self.dense_search_filtered(v, n, &|_| true, DocFilter::All)
    }

    /// [`Self::dense_search`] among chunk rows where `keep(row)` is true; `docs` says the
    /// same by document rows, for a backend that searches on its server (where `keep`
    /// cannot run).
    pub fn dense_search_filtered(
        &self,
        v: &[f32],
        n: usize,
        keep: &(dyn Fn(i64) -> bool + Sync),
        docs: DocFilter<'_>,
    ) -> Result<Vec<(i64, f32)>, Error> {
        if !self.store.searches_dense() {
            return Ok(self.dense().search_filtered(v, n, keep));
        }
        let fetch = (n * 2).max(n + 16);
        let ef = crate::index::dense::scaled_ef(self.cfg.hnsw_ef_search, 0).max(fetch);
        let hits = self.store.dense_search(v, fetch, ef, docs)?;
        self.rescore(v, n, &hits)
    }

    /// `hits` re-scored exactly over their stored vectors (as the exact index scores):
    /// the top `n`, ties by row id.
    fn rescore(&self, v: &[f32], n: usize, hits: &[(i64, f32)]) -> Result<Vec<(i64, f32)>, Error> {
        let ids: Vec<i64> = hits.iter().map(|h| h.0).collect();
        let vectors = self.store.vectors_by_ids(&ids)?;
        let rows: Vec<(u64, &[f32])> = ids
            .iter()
            .zip(&vectors)
            .filter_map(|(i, v)| v.as_deref().map(|v| (*i as u64, v)))
            .collect();
        let exact = crate::index::dense::ExactIndex::from_rows(self.embedder.dim(), rows)?;
        Ok(exact
            .search(v, n, &|_| true)
            .into_iter()
            .map(|(i, s)| (i as i64, s))
            .collect())
    }

    /// Exact top-`n` (for measuring HNSW recall).
    pub fn dense_search_exact(&self, v: &[f32], n: usize) -> Result<Vec<(i64, f32)>, Error> {
        self.dense()
            .search_exact(&self.store, self.embedder.dim(), v, n)
            .map_err(Error::from)
    }

    /// Load (or rebuild in memory) the HNSW graph even when search uses exact search,
    /// to measure its recall.
    pub fn ensure_graph(&mut self) -> Result<(), Error> {
        if self.store.searches_dense() {
            return Ok(());
        }
        let dim = self.embedder.dim();
        let dense =
            self.dense.as_mut().and_then(Arc::get_mut).ok_or_else(|| {
                Error::Usage("the dense index is shared with another engine".into())
            })?;
        dense
            .ensure_graph(&self.store, &self.cfg.index, &self.cfg, dim)
            .map_err(Error::from)
    }

    /// HNSW top-`n`, when a graph is loaded.
    pub fn dense_search_hnsw(&self, v: &[f32], n: usize) -> Option<Vec<(i64, f32)>> {
        self.dense().search_hnsw(v, n)
    }

    /// `exact` or `hnsw`, or the backend that searches vectors itself (`milvus`).
    pub fn dense_backend(&self) -> &str {
        if self.store.searches_dense() {
            return self.cfg.backend.as_str();
        }
        self.dense().backend()
    }

    /// Health of the dense index as found on opening.
    pub fn index_health(&self) -> &IndexHealth {
        self.dense().health()
    }
}

/// The Milvus collections `cfg` names, as writer 0 of 1.
fn milvus_target(cfg: &Config) -> MilvusTarget {
    MilvusTarget {
        url: cfg.milvus_url.clone(),
        prefix: cfg.milvus_prefix.clone(),
        writer: Writer::default(),
    }
}

/// The store `cfg.backend` names, for `model` / `dim` (created when `create`).
pub fn open_store(cfg: &Config, model: &str, dim: usize, create: bool) -> Result<Store, Error> {
    Ok(match cfg.backend {
        BackendKind::Sqlite => Store::open(&cfg.index, model, dim, create)?,
        BackendKind::Milvus => Store::new(Box::new(MilvusStore::open(
            &milvus_target(cfg),
            model,
            dim,
            create,
        )?)),
    })
}

/// The precision the bi-encoder runs at over the index of `cfg`: the one the setting
/// fixes; under `auto`, the one the index records, or for a new index
/// [`default_precision`](crate::models::default_precision).
pub fn embed_precision(cfg: &Config) -> Result<EmbedPrecision, Error> {
    if let Some(p) = cfg.embed_precision.fixed() {
        return Ok(p);
    }
    match open_existing_store(cfg) {
        Ok(store) => Ok(store
            .model_id()?
            .map(|m| crate::models::precision_of_model_id(&m))
            .unwrap_or_else(crate::models::default_precision)),
        Err(Error::Store(StoreError::NoIndex { .. })) => Ok(crate::models::default_precision()),
        Err(e) => Err(e),
    }
}

/// The bundled bi-encoder at [`embed_precision`], with the configured batch budget.
pub fn bi_encoder(cfg: &Config) -> Result<MiniLm, Error> {
    let mut model = MiniLm::load_default_at(cfg.model_dir.as_deref(), embed_precision(cfg)?)?;
    model.batch_tokens = cfg.embed_batch_tokens.max(1);
    Ok(model)
}

/// The existing store `cfg.backend` names, opened without checking its model (for
/// `status` and audits).
pub fn open_existing_store(cfg: &Config) -> Result<Store, Error> {
    Ok(match cfg.backend {
        BackendKind::Sqlite => Store::open_existing(&cfg.index)?,
        BackendKind::Milvus => {
            Store::new(Box::new(MilvusStore::open_existing(&milvus_target(cfg))?))
        }
    })
}

/// An engine over the bundled sample corpus with the deterministic fake embedder, in
/// `dir/idx` (for unit tests).
#[cfg(test)]
pub(crate) fn sample_engine(dir: &Path) -> Engine {
    let cfg = Config {
        index: dir.join("idx"),
        ..Config::default()
    };
    let mut e = Engine::open(cfg, Arc::new(crate::models::HashEmbedder::new(128)), true).unwrap();
    let corpus = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    crate::ingest::ingest(&mut e, &[corpus], &crate::ingest::IngestOptions::default()).unwrap();
    e
}
