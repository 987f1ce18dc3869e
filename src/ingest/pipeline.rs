//! The ingest pipeline: loading, embedding and writing overlap.
//!
//! - A loader thread reads and chunks the files in parallel on a pool of its own, a window
//!   at a time, and hands them on in walk order.
//! - The calling thread compares each loaded file with the store and hands what changed
//!   to the embedder; it also writes each embedded file in its own transaction.
//! - An embedder thread packs the chunks of several files into each bi-encoder call, so
//!   batches stay full when files are small.
//!
//! Every queue between stages is bounded, so memory does not grow with the corpus. Files
//! are written in walk order, so row ids (and every tie broken by them) never depend on
//! timing.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::reuse::{RunCache, Source};
use super::{
    compare_loaded, display_path, load_and_chunk, load_options, write_file, Failure, IngestReport,
    Loaded, Pending, Repair, ToLoad,
};
use crate::config::Config;
use crate::corpus::load::LoadOptions;
use crate::engine::Engine;
use crate::error::Error;
use crate::models::{Embed, ModelError};
use crate::store::EmbedHash;

/// Texts per bi-encoder call. The file time limit is checked between calls.
const EMBED_GROUP: usize = 256;
/// Loaded files waiting to be compared.
const LOAD_QUEUE: usize = 16;
/// Compared files waiting to be embedded.
const EMBED_QUEUE: usize = 32;

/// What the embedder thread hands back: a file with its vectors set (or its failure), or
/// a model that returned malformed output, which fails the run.
enum Embedded {
    File(Box<Pending>, Result<(), String>),
    Fatal(ModelError),
}

/// Time and tokens of the embedding stage.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct EmbedStats {
    pub time: Duration,
    pub tokens: usize,
    /// Texts the bi-encoder embedded.
    pub texts: usize,
}

/// Runs the pipeline over `to_load`: loads, compares, embeds and writes every file,
/// recording results in `report` and files no longer readable in `lost`.
pub(super) fn run(
    engine: &mut Engine,
    to_load: Vec<ToLoad>,
    check: (bool, &Repair),
    lost: &mut BTreeSet<String>,
    progress: bool,
    report: &mut IngestReport,
) -> Result<EmbedStats, Error> {
    let cfg = engine.config().clone();
    let embedder = engine.embedder_arc();
    let bytes = to_load.iter().map(|t| t.size).sum();
    let bars = Bars::new(progress, to_load.len() as u64, bytes);
    let limit = Duration::from_secs(cfg.file_timeout_secs);
    std::thread::scope(|s| {
        let (load_tx, load_rx) = sync_channel::<Loaded>(LOAD_QUEUE);
        let (embed_tx, embed_rx) = sync_channel::<Pending>(EMBED_QUEUE);
        let (done_tx, done_rx) = channel::<Embedded>();
        let lb = (bars.load.clone(), bars.files.clone(), bars.pages.clone());
        let eb = (bars.embed.clone(), bars.tokens.clone());
        let loader_embedder = embedder.clone();
        s.spawn(move || load_stage(to_load, &cfg, loader_embedder, &lb, load_tx));
        let stage = s.spawn(move || embed_stage(&*embedder, limit, &eb, embed_rx, done_tx));
        let fed = feed(
            engine, load_rx, &embed_tx, &done_rx, check, lost, &bars, report,
        );
        drop(embed_tx);
        // Whatever happened, the embedder ends once its queue is closed.
        let written = fed.and_then(|()| {
            done_rx
                .iter()
                .try_for_each(|e| write_embedded(engine, e, report))
        });
        let stats = stage.join().unwrap_or_default();
        bars.finish();
        written.map(|()| stats)
    })
}

/// The calling thread's part: compares each loaded file with the store and queues what
/// changed for embedding, writing embedded files whenever they are ready.
#[allow(clippy::too_many_arguments)]
fn feed(
    engine: &mut Engine,
    load_rx: Receiver<Loaded>,
    embed_tx: &SyncSender<Pending>,
    done_rx: &Receiver<Embedded>,
    check: (bool, &Repair),
    lost: &mut BTreeSet<String>,
    bars: &Bars,
    report: &mut IngestReport,
) -> Result<(), Error> {
    for loaded in load_rx {
        report.load_ms += loaded.spent.as_millis() as u64;
        for e in done_rx.try_iter() {
            write_embedded(engine, e, report)?;
        }
        let Some(p) = compare_loaded(engine, loaded, check.0, check.1, lost, report)? else {
            continue;
        };
        bars.embed
            .inc_length(p.embed_texts.iter().map(Vec::len).sum::<usize>() as u64);
        if embed_tx.send(p).is_err() {
            // The embedder stopped on a fatal error, which is waiting in `done_rx`.
            break;
        }
    }
    Ok(())
}

/// Writes one embedded file (or records its failure); a fatal model error fails the run.
fn write_embedded(
    engine: &mut Engine,
    e: Embedded,
    report: &mut IngestReport,
) -> Result<(), Error> {
    match e {
        Embedded::Fatal(err) => Err(err.into()),
        Embedded::File(p, Err(reason)) => {
            // Nothing of this file is written; what is stored for it stays as it was.
            report.failed.push(Failure {
                path: display_path(&p.shown),
                reason,
            });
            Ok(())
        }
        Embedded::File(p, Ok(())) => {
            let t = Instant::now();
            let written = write_file(engine, &p, report)?;
            report.write_ms += t.elapsed().as_millis() as u64;
            if written {
                let texts = p.embed_texts.iter().map(Vec::len).sum::<usize>();
                report.chunks_embedded += texts - p.reused.min(texts);
                report.chunks_reused += p.reused;
            }
            Ok(())
        }
    }
}

/// The loader thread: loads and chunks the files on a pool of its own, up to
/// [`LOAD_AHEAD`] files per thread ahead of the next to hand on, and hands them on in
/// walk order as soon as each and all before it are read. A slow file (a scanned page
/// read by OCR, a large PDF) holds up only the files after it, and those keep loading
/// meanwhile; walk order keeps row ids independent of timing.
fn load_stage(
    to_load: Vec<ToLoad>,
    cfg: &Config,
    embedder: Arc<dyn Embed>,
    bar: &LoadBars,
    tx: SyncSender<Loaded>,
) {
    let load_opts = load_options(cfg);
    let shape = super::chunking(cfg);
    let one = |file: ToLoad| load_one(file, &load_opts, &*embedder, shape, bar);
    let threads = rayon::current_num_threads().max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("attest-load-{i}"))
        .build();
    let Ok(pool) = pool else {
        // Never block the embedder's own pool: load on this thread.
        for file in to_load {
            if tx.send(one(file)).is_err() {
                return;
            }
        }
        return;
    };
    let ahead = threads * LOAD_AHEAD;
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, std::thread::Result<Loaded>)>();
    pool.in_place_scope(|scope| {
        let mut files = to_load.into_iter().enumerate();
        let mut read: BTreeMap<usize, Loaded> = BTreeMap::new();
        let (mut next, mut started) = (0usize, 0usize);
        loop {
            while started - next < ahead {
                let Some((i, file)) = files.next() else { break };
                let (done, one) = (done_tx.clone(), &one);
                scope.spawn(move |_| {
                    // A panic travels to this thread, which would otherwise wait for it.
                    let loaded = std::panic::catch_unwind(AssertUnwindSafe(|| one(file)));
                    let _ = done.send((i, loaded));
                });
                started += 1;
            }
            if next == started {
                return;
            }
            let Ok((i, loaded)) = done_rx.recv() else {
                return;
            };
            read.insert(i, loaded.unwrap_or_else(|p| std::panic::resume_unwind(p)));
            while let Some(loaded) = read.remove(&next) {
                if tx.send(loaded).is_err() {
                    return; // the writer stopped; the files under way finish first
                }
                next += 1;
            }
        }
    });
}

/// Files each loader thread may read ahead of the next file handed on.
const LOAD_AHEAD: usize = 8;

/// Loads and chunks one file within its time limit.
fn load_one(
    file: ToLoad,
    load_opts: &LoadOptions,
    embedder: &dyn Embed,
    shape: crate::corpus::chunk::Chunking,
    (bar, files_bar, pages_bar): &LoadBars,
) -> Loaded {
    bar.set_message(display_path(&file.found.shown));
    let count = |s: &str| embedder.count_tokens(s);
    let t = Instant::now();
    // Read through the path found: its name (a symlink's) gave the walk its format.
    let result = load_and_chunk(&file.found.shown, load_opts, shape, &count);
    bar.inc(file.size);
    files_bar.inc(1);
    if let Ok((_, docs)) = &result {
        pages_bar.inc(docs.iter().map(|(d, ..)| d.layout.pages.len() as u64).sum());
    }
    Loaded {
        file,
        spent: t.elapsed(),
        result,
    }
}

/// A file in the embedder's hands: its texts and their hashes, the vectors so far, the
/// texts the bi-encoder embeds for it (the others reuse a vector embedded before), the
/// time charged to it (loading and chunking, then its share of each embedding call; never
/// the time it waited in the queue or the share of a file embedded in the same call) and
/// its failure, if any.
struct Job {
    pending: Box<Pending>,
    texts: Vec<String>,
    hashes: Vec<EmbedHash>,
    vectors: Vec<Option<Vec<f32>>>,
    /// Indices of the texts the bi-encoder embeds for this file, in order; the first
    /// `done` of them are embedded.
    todo: Vec<usize>,
    done: usize,
    reused: usize,
    charged: Duration,
    limit: Duration,
    failed: Option<String>,
}

impl Job {
    /// A file whose texts take a vector from the store or the run where one exists, wait
    /// for a queued one, or are queued for the bi-encoder.
    fn new(mut p: Pending, limit: Duration, cache: &mut RunCache) -> Self {
        let texts: Vec<String> = p.embed_texts.iter().flatten().cloned().collect();
        let mut hashes = std::mem::take(&mut p.embed_hashes);
        if hashes.len() != texts.len() {
            hashes = texts.iter().map(|t| crate::store::embed_hash(t)).collect();
        }
        let stored = std::mem::take(&mut p.stored_vectors);
        let (mut vectors, mut todo, mut reused) = (Vec::with_capacity(texts.len()), Vec::new(), 0);
        for (i, h) in hashes.iter().enumerate() {
            vectors.push(match cache.source(h, &stored) {
                Source::Known(v) => {
                    reused += 1;
                    Some(v)
                }
                Source::Queued => None,
                Source::Embed => {
                    todo.push(i);
                    None
                }
            });
        }
        Job {
            charged: p.spent,
            pending: Box::new(p),
            texts,
            hashes,
            vectors,
            todo,
            done: 0,
            reused,
            limit,
            failed: None,
        }
    }

    /// Texts still to embed for this file (none once it failed).
    fn left(&self) -> usize {
        if self.failed.is_some() {
            0
        } else {
            self.todo.len() - self.done
        }
    }

    /// The next `n` texts to embed.
    fn next_texts(&self, n: usize) -> impl Iterator<Item = &str> {
        self.todo[self.done..self.done + n]
            .iter()
            .map(|&i| self.texts[i].as_str())
    }

    /// Takes the vectors of the next texts to embed, and lends them to the run.
    fn embedded(
        &mut self,
        vectors: impl Iterator<Item = Vec<f32>>,
        cache: &mut RunCache,
        stats: &mut EmbedStats,
    ) {
        for v in vectors {
            stats.texts += 1;
            let i = self.todo[self.done];
            cache.embedded(self.hashes[i], &v);
            self.vectors[i] = Some(v);
            self.done += 1;
        }
    }

    /// Once its own texts are embedded, fills the texts that waited for a vector queued by
    /// an earlier file; those the run no longer holds (that file failed, or the run's
    /// cache started afresh) become its own to embed. Whether the file is complete.
    fn settle(&mut self, cache: &RunCache) -> bool {
        if self.failed.is_some() {
            return true;
        }
        for i in 0..self.texts.len() {
            if self.vectors[i].is_none() {
                match cache.get(&self.hashes[i]) {
                    Some(v) => {
                        self.vectors[i] = Some(v.clone());
                        self.reused += 1;
                    }
                    None => self.todo.push(i),
                }
            }
        }
        self.left() == 0
    }

    /// Fails the job when the time charged to it passed its limit.
    fn check_late(&mut self) {
        if self.failed.is_none() && self.charged > self.limit {
            self.failed = Some(format!(
                "loading, chunking and embedding took longer than the {} s limit \
                 (file_timeout_secs; {} of {} chunks embedded)",
                self.limit.as_secs_f64(),
                self.done + self.reused,
                self.texts.len()
            ));
        }
    }

    /// Sets the vectors (and the hashes they were embedded from) on the pending file and
    /// hands it back with its outcome; a failed file's queued texts are dropped from the run.
    fn finish(mut self, cache: &mut RunCache) -> Embedded {
        if let Some(reason) = self.failed {
            for &i in &self.todo[self.done..] {
                cache.dropped(&self.hashes[i]);
            }
            return Embedded::File(self.pending, Err(reason));
        }
        self.pending.reused = self.reused;
        let chunks = self
            .pending
            .docs
            .iter_mut()
            .flat_map(|d| d.chunks.iter_mut());
        for ((c, v), h) in chunks.zip(self.vectors).zip(self.hashes) {
            c.vector = v.unwrap_or_default();
            c.embed_hash = Some(h);
        }
        Embedded::File(self.pending, Ok(()))
    }
}

/// The embedder thread: takes files in order, embeds up to [`EMBED_GROUP`] texts per call
/// across as many queued files as it takes, and hands each file back once all its texts
/// have vectors (or it failed), in order. A text embedded before is not embedded again.
fn embed_stage(
    embedder: &dyn Embed,
    limit: Duration,
    (bar, tokens_bar): &(indicatif::ProgressBar, indicatif::ProgressBar),
    rx: Receiver<Pending>,
    tx: Sender<Embedded>,
) -> EmbedStats {
    let mut stats = EmbedStats::default();
    let mut cache = RunCache::default();
    let mut jobs: VecDeque<Job> = VecDeque::new();
    let mut open = true;
    loop {
        if jobs.is_empty() {
            match rx.recv() {
                Ok(p) => jobs.push_back(Job::new(p, limit, &mut cache)),
                Err(_) => return stats,
            }
        }
        while open && jobs.iter().map(Job::left).sum::<usize>() < EMBED_GROUP {
            match rx.try_recv() {
                Ok(p) => jobs.push_back(Job::new(p, limit, &mut cache)),
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => open = false,
            }
        }
        let (tokens, texts) = (stats.tokens, stats.texts);
        if let Err(e) = embed_group(embedder, &mut jobs, &mut stats, &mut cache) {
            let _ = tx.send(Embedded::Fatal(e));
            return stats;
        }
        // Chunks count as they are embedded, so a large file shows its progress.
        tokens_bar.inc((stats.tokens - tokens) as u64);
        bar.inc((stats.texts - texts) as u64);
        while let Some(front) = jobs.front_mut() {
            if front.left() > 0 || !front.settle(&cache) {
                break;
            }
            let job = jobs.pop_front().expect("a front job");
            // The chunks not embedded for it (reused, or left by a failure) count now.
            bar.inc((job.texts.len() - job.done) as u64);
            if tx.send(job.finish(&mut cache)).is_err() {
                return stats;
            }
        }
    }
}

/// Embeds the next group of texts across the queued jobs, in order, charging each job its
/// share of the call by its number of texts. A job over its limit fails before or after its
/// part; when the call fails, each job's part is embedded alone, so that only the file the
/// model failed on fails. Malformed output is `Err`.
fn embed_group(
    embedder: &dyn Embed,
    jobs: &mut VecDeque<Job>,
    stats: &mut EmbedStats,
    cache: &mut RunCache,
) -> Result<(), ModelError> {
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut room = EMBED_GROUP;
    for (i, job) in jobs.iter_mut().enumerate() {
        if room == 0 {
            break;
        }
        job.check_late();
        let take = job.left().min(room);
        if take > 0 {
            parts.push((i, take));
            room -= take;
        }
    }
    if parts.is_empty() {
        return Ok(());
    }
    let texts: Vec<&str> = parts
        .iter()
        .flat_map(|&(i, n)| jobs[i].next_texts(n))
        .collect();
    let t = Instant::now();
    let result = embedder.embed_counted(&texts);
    let took = t.elapsed();
    stats.time += took;
    let total = texts.len() as f64;
    drop(texts);
    for &(i, n) in &parts {
        jobs[i].charged += took.mul_f64(n as f64 / total);
    }
    match result {
        Ok((vectors, tokens)) => {
            stats.tokens += tokens;
            let mut it = vectors.into_iter();
            for &(i, n) in &parts {
                jobs[i].embedded(it.by_ref().take(n), cache, stats);
            }
        }
        Err(e @ ModelError::Output { .. }) => return Err(e),
        Err(_) if parts.len() > 1 => return embed_alone(embedder, jobs, &parts, stats, cache),
        Err(e) => jobs[parts[0].0].failed = Some(format!("embedding failed: {e}")),
    }
    for &(i, _) in &parts {
        jobs[i].check_late();
    }
    Ok(())
}

/// After a failed call over several files: each file's part on its own.
fn embed_alone(
    embedder: &dyn Embed,
    jobs: &mut VecDeque<Job>,
    parts: &[(usize, usize)],
    stats: &mut EmbedStats,
    cache: &mut RunCache,
) -> Result<(), ModelError> {
    for &(i, n) in parts {
        let job = &mut jobs[i];
        let texts: Vec<&str> = job.next_texts(n).collect();
        let t = Instant::now();
        let result = embedder.embed_counted(&texts);
        drop(texts);
        stats.time += t.elapsed();
        job.charged += t.elapsed();
        match result {
            Ok((v, tokens)) => {
                stats.tokens += tokens;
                job.embedded(v.into_iter(), cache, stats);
            }
            Err(e @ ModelError::Output { .. }) => return Err(e),
            Err(e) => job.failed = Some(format!("embedding failed: {e}")),
        }
        job.check_late();
    }
    Ok(())
}

/// The loader's bars: bytes, files and pages loaded.
type LoadBars = (
    indicatif::ProgressBar,
    indicatif::ProgressBar,
    indicatif::ProgressBar,
);

/// The progress of a run: files, bytes and pages loaded, chunks and tokens embedded (bars
/// on a terminal, a log line every ten seconds elsewhere), each with its rate.
struct Bars {
    multi: indicatif::MultiProgress,
    files: indicatif::ProgressBar,
    load: indicatif::ProgressBar,
    pages: indicatif::ProgressBar,
    embed: indicatif::ProgressBar,
    tokens: indicatif::ProgressBar,
    _ticker: crate::progress::Ticker,
}

impl Bars {
    fn new(progress: bool, files: u64, bytes: u64) -> Self {
        use crate::progress::{Counter, Ticker, Unit};
        let multi = indicatif::MultiProgress::new();
        let load = multi.add(super::load_bar(progress, bytes));
        let embed = multi.add(super::progress_bar(progress));
        let files = super::hidden_bar(files);
        let (pages, tokens) = (super::hidden_bar(0), super::hidden_bar(0));
        let counter = |label: &str, unit, bar: &indicatif::ProgressBar| Counter {
            label: label.to_string(),
            unit,
            bar: bar.clone(),
        };
        let counters = vec![
            counter("files loaded", Unit::Items, &files),
            counter("loaded", Unit::Bytes, &load),
            counter("pages", Unit::Items, &pages),
            counter("chunks embedded", Unit::Items, &embed),
            counter("tokens", Unit::Items, &tokens),
        ];
        Bars {
            _ticker: Ticker::start(progress, "ingest", counters),
            multi,
            files,
            load,
            pages,
            embed,
            tokens,
        }
    }

    fn finish(&self) {
        self.load.finish_and_clear();
        self.embed.finish_and_clear();
        let _ = self.multi.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::HashEmbedder;

    /// A bi-encoder that takes `per_text` for each text of a call.
    struct Slow {
        inner: HashEmbedder,
        per_text: Duration,
    }

    impl Embed for Slow {
        fn model_id(&self) -> &str {
            self.inner.model_id()
        }
        fn dim(&self) -> usize {
            self.inner.dim()
        }
        fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            std::thread::sleep(self.per_text * texts.len() as u32);
            self.inner.embed_unchecked(texts)
        }
        fn count_tokens(&self, text: &str) -> usize {
            self.inner.count_tokens(text)
        }
    }

    fn pending(name: &str, texts: usize) -> Pending {
        Pending {
            path: name.into(),
            shown: name.into(),
            size: 0,
            mtime_ns: 0,
            spent: Duration::ZERO,
            file_hash: String::new(),
            counts: [0; 3],
            remove: Vec::new(),
            docs: Vec::new(),
            embed_texts: vec![(0..texts).map(|i| format!("{name} text {i}")).collect()],
            embed_hashes: Vec::new(),
            stored_vectors: std::collections::HashMap::new(),
            reused: 0,
        }
    }

    #[test]
    fn a_small_file_embedded_with_a_slow_one_pays_only_its_share() {
        let slow = Slow {
            inner: HashEmbedder::new(16),
            per_text: Duration::from_millis(10),
        };
        let limit = Duration::from_millis(500);
        let mut cache = RunCache::default();
        let mut jobs: VecDeque<Job> = [pending("small", 1), pending("big", 100)]
            .into_iter()
            .map(|p| Job::new(p, limit, &mut cache))
            .collect();
        let mut stats = EmbedStats::default();
        embed_group(&slow, &mut jobs, &mut stats, &mut cache).unwrap();
        // One call of 101 texts took at least 1 s: the big file is over its limit, the
        // small one was charged about 10 ms and is not.
        assert!(stats.time >= Duration::from_secs(1), "{stats:?}");
        assert_eq!(jobs[0].failed, None, "{:?}", jobs[0].charged);
        assert_eq!(jobs[0].done, 1);
        let reason = jobs[1].failed.as_deref().unwrap_or_default();
        assert!(reason.contains("0.5 s limit"), "{reason}");
        assert!(jobs[1].charged > limit);
    }

    /// A bi-encoder that counts the texts it is given.
    struct Counting {
        inner: HashEmbedder,
        texts: std::sync::atomic::AtomicUsize,
    }

    impl Embed for Counting {
        fn model_id(&self) -> &str {
            self.inner.model_id()
        }
        fn dim(&self) -> usize {
            self.inner.dim()
        }
        fn embed_unchecked(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            self.texts
                .fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
            self.inner.embed_unchecked(texts)
        }
        fn count_tokens(&self, text: &str) -> usize {
            self.inner.count_tokens(text)
        }
    }

    #[test]
    fn a_text_seen_before_in_the_run_or_in_the_store_is_not_embedded_again() {
        let model = Counting {
            inner: HashEmbedder::new(16),
            texts: Default::default(),
        };
        let mut copy = pending("a", 3);
        copy.path = "copy".into();
        let mut half_stored = pending("b", 2);
        let stored_vector = vec![1.0; 16];
        let h = crate::store::embed_hash("b text 0");
        half_stored.embed_hashes = half_stored.embed_texts[0]
            .iter()
            .map(|t| crate::store::embed_hash(t))
            .collect();
        half_stored.stored_vectors = std::collections::HashMap::from([(h, stored_vector.clone())]);
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        for p in [pending("a", 3), copy, half_stored] {
            tx.send(p).unwrap();
        }
        drop(tx);
        let bars = (
            indicatif::ProgressBar::hidden(),
            indicatif::ProgressBar::hidden(),
        );
        embed_stage(&model, Duration::from_secs(60), &bars, rx, done_tx);
        // "a" embeds 3 texts, its copy none, "b" one of its two.
        assert_eq!(model.texts.load(std::sync::atomic::Ordering::SeqCst), 4);
        let files: Vec<Box<Pending>> = done_rx
            .iter()
            .map(|e| match e {
                Embedded::File(p, Ok(())) => p,
                _ => panic!("a file failed"),
            })
            .collect();
        let reused: Vec<usize> = files.iter().map(|p| p.reused).collect();
        assert_eq!(reused, [0, 3, 1]);
    }
}
