//! The generator's tokenizer, built from a GGUF file's own metadata
//! (`tokenizer.ggml.*`) or from a `tokenizer.json` beside it.
//!
//! Two metadata vocabularies are supported: `llama` (SentencePiece pieces with scores and
//! byte fallback, as Llama 2 and Gemma use) is encoded here by merging the adjacent pair
//! whose merged piece scores highest; `gpt2` (byte-level BPE with merges, as Qwen and
//! Llama 3 use) is handed to the `tokenizers` crate. User-defined pieces (Gemma's runs of
//! newlines) are always whole tokens; control pieces (`<start_of_turn>`) are recognised
//! only in text the caller marks as trusted, so text from documents cannot forge them.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;

use candle_core::quantized::gguf_file::{Content, Value};

use super::ModelError;

/// SentencePiece token types as GGUF stores them.
const TYPE_NORMAL: i32 = 1;
const TYPE_UNKNOWN: i32 = 2;
const TYPE_CONTROL: i32 = 3;
const TYPE_USER_DEFINED: i32 = 4;
const TYPE_BYTE: i32 = 6;

/// The word-boundary marker SentencePiece writes for a space.
const SPACE: char = '\u{2581}';

/// A tokenizer for the generator.
#[derive(Debug)]
pub struct GenTokenizer {
    inner: Inner,
    /// Token pieces by id (for control tokens and decoding byte pieces).
    pieces: Vec<String>,
    /// Control pieces (never produced from untrusted text), longest first.
    control: Vec<(String, u32)>,
    /// Beginning-of-sequence id, when the model has one.
    pub bos: Option<u32>,
    /// Whether a prompt starts with `bos`.
    pub add_bos: bool,
    /// Ids that end generation (end of sequence, end of turn).
    pub stop: Vec<u32>,
}

#[derive(Debug)]
enum Inner {
    Spm(Box<Spm>),
    Hf(Box<tokenizers::Tokenizer>),
}

#[derive(Debug)]
struct Spm {
    ids: HashMap<String, u32>,
    scores: Vec<f32>,
    types: Vec<i32>,
    bytes: [Option<u32>; 256],
    unknown: Option<u32>,
    add_space_prefix: bool,
    /// User-defined pieces by first char, longest first.
    user: HashMap<char, Vec<(String, u32)>>,
}

fn meta<'a>(ct: &'a Content, key: &str) -> Option<&'a Value> {
    ct.metadata.get(key)
}

fn meta_u32(ct: &Content, key: &str) -> Option<u32> {
    meta(ct, key).and_then(|v| match v {
        Value::U32(x) => Some(*x),
        Value::I32(x) => u32::try_from(*x).ok(),
        Value::U64(x) => u32::try_from(*x).ok(),
        Value::I64(x) => u32::try_from(*x).ok(),
        _ => None,
    })
}

fn meta_bool(ct: &Content, key: &str) -> Option<bool> {
    meta(ct, key).and_then(|v| v.to_bool().ok())
}

fn strings(ct: &Content, key: &str, path: &Path) -> Result<Vec<String>, ModelError> {
    let bad = |reason: String| ModelError::Tokenizer {
        path: path.to_path_buf(),
        reason,
    };
    let v = meta(ct, key).ok_or_else(|| bad(format!("metadata has no {key}")))?;
    let arr = v
        .to_vec()
        .map_err(|_| bad(format!("{key} is not an array")))?;
    arr.iter()
        .map(|x| {
            x.to_string()
                .cloned()
                .map_err(|_| bad(format!("{key} holds a value that is not a string")))
        })
        .collect()
}

fn numbers<T>(ct: &Content, key: &str, n: usize, default: T, f: fn(&Value) -> Option<T>) -> Vec<T>
where
    T: Clone,
{
    match meta(ct, key).and_then(|v| v.to_vec().ok()) {
        Some(arr) if arr.len() == n => arr
            .iter()
            .map(|x| f(x).unwrap_or(default.clone()))
            .collect(),
        _ => vec![default; n],
    }
}

impl GenTokenizer {
    /// The tokenizer for the GGUF file at `path` whose header is `ct`: `tokenizer.json`
    /// beside it when present, else the file's `tokenizer.ggml.*` metadata.
    pub fn load(path: &Path, ct: &Content) -> Result<Self, ModelError> {
        let pieces = strings(ct, "tokenizer.ggml.tokens", path).ok();
        let n = pieces.as_ref().map_or(0, Vec::len);
        let types: Vec<i32> = numbers(ct, "tokenizer.ggml.token_type", n, TYPE_NORMAL, |v| {
            v.to_i32().ok()
        });
        let bos = meta_u32(ct, "tokenizer.ggml.bos_token_id");
        let eos = meta_u32(ct, "tokenizer.ggml.eos_token_id");
        let add_bos = meta_bool(ct, "tokenizer.ggml.add_bos_token").unwrap_or(bos.is_some());
        let (inner, pieces) = load_inner(path, ct, pieces, &types)?;
        let control = control_pieces(&inner, &pieces, &types);
        let stop = stop_ids(eos, &control);
        Ok(GenTokenizer {
            inner,
            pieces,
            control,
            bos,
            add_bos,
            stop,
        })
    }

    /// Number of pieces.
    pub fn vocab_size(&self) -> usize {
        self.pieces.len()
    }

    /// The piece of token `id`.
    pub fn piece(&self, id: u32) -> Option<&str> {
        self.pieces.get(id as usize).map(String::as_str)
    }

    /// The id of a piece (`<end_of_turn>`), if the vocabulary has it.
    pub fn piece_id(&self, piece: &str) -> Option<u32> {
        match &self.inner {
            Inner::Spm(s) => s.ids.get(piece).copied(),
            Inner::Hf(t) => t.token_to_id(piece),
        }
    }

    /// The control pieces' texts (for scrubbing untrusted text before it enters a prompt).
    pub fn control_pieces(&self) -> impl Iterator<Item = &str> {
        self.control.iter().map(|(p, _)| p.as_str())
    }

    /// `text` with every control piece removed, so that untrusted text placed into a
    /// prompt cannot open or close a turn.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        loop {
            let before = out.len();
            for (p, _) in &self.control {
                if out.contains(p.as_str()) {
                    out = out.replace(p.as_str(), "");
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }

    /// Token ids of `text` (no beginning-of-sequence token). With `trusted`, control
    /// pieces written in the text become their control tokens; otherwise they are
    /// encoded as ordinary text.
    pub fn encode(&self, text: &str, trusted: bool) -> Result<Vec<u32>, ModelError> {
        let mut out = Vec::new();
        let mut rest = text;
        let mut first = true;
        while !rest.is_empty() {
            let hit = if trusted {
                self.control
                    .iter()
                    .filter_map(|(p, id)| rest.find(p.as_str()).map(|at| (at, p.len(), *id)))
                    .min_by_key(|(at, len, _)| (*at, std::cmp::Reverse(*len)))
            } else {
                None
            };
            let (plain, after) = match hit {
                Some((at, len, id)) => (&rest[..at], Some((id, &rest[at + len..]))),
                None => (rest, None),
            };
            if !plain.is_empty() {
                self.encode_plain(plain, first, &mut out)?;
            }
            first = false;
            match after {
                Some((id, r)) => {
                    out.push(id);
                    rest = r;
                }
                None => break,
            }
        }
        Ok(out)
    }

    fn encode_plain(&self, text: &str, first: bool, out: &mut Vec<u32>) -> Result<(), ModelError> {
        match &self.inner {
            Inner::Spm(s) => {
                s.encode(text, first, out);
                Ok(())
            }
            Inner::Hf(t) => {
                let enc = t
                    .encode(text, false)
                    .map_err(|e| ModelError::Input(format!("tokenizer: {e}")))?;
                out.extend_from_slice(enc.get_ids());
                Ok(())
            }
        }
    }

    /// The text of `ids`, control tokens left out.
    pub fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        match &self.inner {
            Inner::Spm(s) => Ok(s.decode(ids, &self.pieces)),
            Inner::Hf(t) => t
                .decode(ids, true)
                .map_err(|e| ModelError::Input(format!("tokenizer: {e}"))),
        }
    }
}

/// Pieces that end a turn in the chat templates of the supported families (Gemma, Qwen
/// and ChatML, Llama 3, GPT-2 style), besides the file's end-of-sequence id.
const STOP_PIECES: &[&str] = &["<end_of_turn>", "<|im_end|>", "<|eot_id|>", "<|endoftext|>"];

/// The tokenizer proper and its pieces by id: `tokenizer.json` beside the file at `path`
/// when present, else from the metadata `pieces` (SentencePiece or byte-level BPE).
fn load_inner(
    path: &Path,
    ct: &Content,
    pieces: Option<Vec<String>>,
    types: &[i32],
) -> Result<(Inner, Vec<String>), ModelError> {
    let beside = path
        .parent()
        .map(|d| d.join("tokenizer.json"))
        .filter(|p| p.is_file());
    match (beside, pieces) {
        (Some(json), _) => {
            let tok = tokenizers::Tokenizer::from_file(&json).map_err(|e| {
                ModelError::Tokenizer {
                    path: json.clone(),
                    reason: e.to_string(),
                }
            })?;
            let mut pieces = vec![String::new(); tok.get_vocab_size(true)];
            for (p, id) in tok.get_vocab(true) {
                if let Some(slot) = pieces.get_mut(id as usize) {
                    *slot = p;
                }
            }
            Ok((Inner::Hf(Box::new(tok)), pieces))
        }
        (None, Some(pieces)) => {
            let model = meta(ct, "tokenizer.ggml.model")
                .and_then(|v| v.to_string().ok().cloned())
                .unwrap_or_else(|| "llama".to_string());
            let inner = match model.as_str() {
                "llama" | "gemma" => Inner::Spm(Box::new(Spm::new(ct, &pieces, types))),
                "gpt2" => Inner::Hf(Box::new(byte_level_bpe(path, ct, &pieces)?)),
                other => {
                    return Err(ModelError::Tokenizer {
                        path: path.to_path_buf(),
                        reason: format!(
                            "tokenizer.ggml.model {other:?} is not supported (llama and gpt2 are); put a tokenizer.json beside the model"
                        ),
                    })
                }
            };
            Ok((inner, pieces))
        }
        (None, None) => Err(ModelError::Tokenizer {
            path: path.to_path_buf(),
            reason: "no tokenizer: the file has no tokenizer.ggml.tokens and there is no tokenizer.json beside it".into(),
        }),
    }
}

/// Control pieces (typed control in the metadata, or special added tokens of a
/// `tokenizer.json`), longest first.
fn control_pieces(inner: &Inner, pieces: &[String], types: &[i32]) -> Vec<(String, u32)> {
    let mut control: Vec<(String, u32)> = pieces
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            !p.is_empty() && types.get(*i).copied().unwrap_or(TYPE_NORMAL) == TYPE_CONTROL
        })
        .map(|(i, p)| (p.clone(), i as u32))
        .collect();
    if let Inner::Hf(t) = inner {
        for a in t.get_added_tokens_decoder().values() {
            if a.special {
                if let Some(id) = t.token_to_id(&a.content) {
                    control.push((a.content.clone(), id));
                }
            }
        }
    }
    control.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
    control.dedup();
    control
}

/// Ids that end generation: `eos` and the [`STOP_PIECES`] among the control pieces.
fn stop_ids(eos: Option<u32>, control: &[(String, u32)]) -> Vec<u32> {
    let mut stop: Vec<u32> = eos.into_iter().collect();
    for name in STOP_PIECES {
        if let Some((_, id)) = control.iter().find(|(p, _)| p == name) {
            stop.push(*id);
        }
    }
    stop.sort_unstable();
    stop.dedup();
    stop
}

/// A byte-level BPE tokenizer from GGUF `gpt2` metadata (pieces and merges).
fn byte_level_bpe(
    path: &Path,
    ct: &Content,
    pieces: &[String],
) -> Result<tokenizers::Tokenizer, ModelError> {
    use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
    use tokenizers::models::bpe::BPE;
    use tokenizers::pre_tokenizers::byte_level::ByteLevel;
    let bad = |reason: String| ModelError::Tokenizer {
        path: path.to_path_buf(),
        reason,
    };
    let merges: Vec<(String, String)> = strings(ct, "tokenizer.ggml.merges", path)?
        .into_iter()
        .filter_map(|m| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        })
        .collect();
    let vocab: tokenizers::models::bpe::Vocab = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), i as u32))
        .collect();
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| bad(format!("byte-level BPE: {e}")))?;
    let mut tok = tokenizers::Tokenizer::new(bpe);
    tok.with_pre_tokenizer(Some(ByteLevel::new(false, false, true)));
    tok.with_decoder(Some(ByteLevelDecoder::default()));
    Ok(tok)
}

/// A candidate merge of two adjacent symbols.
#[derive(Debug, PartialEq)]
struct Bigram {
    score: f32,
    left: usize,
    right: usize,
    len: usize,
}

impl Eq for Bigram {}

impl Ord for Bigram {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then(other.left.cmp(&self.left))
    }
}

impl PartialOrd for Bigram {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Spm {
    fn new(ct: &Content, pieces: &[String], types: &[i32]) -> Self {
        let n = pieces.len();
        let scores: Vec<f32> = numbers(ct, "tokenizer.ggml.scores", n, 0.0, |v| v.to_f32().ok());
        let mut ids = HashMap::with_capacity(n);
        let mut bytes = [None; 256];
        let mut user: HashMap<char, Vec<(String, u32)>> = HashMap::new();
        let mut unknown = meta_u32(ct, "tokenizer.ggml.unknown_token_id");
        for (i, p) in pieces.iter().enumerate() {
            let id = i as u32;
            match types[i] {
                TYPE_BYTE => {
                    if let Some(b) = p
                        .strip_prefix("<0x")
                        .and_then(|h| h.strip_suffix('>'))
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                    {
                        bytes[b as usize] = Some(id);
                    }
                }
                TYPE_USER_DEFINED => {
                    if let Some(c) = p.chars().next() {
                        user.entry(c).or_default().push((p.clone(), id));
                    }
                }
                TYPE_UNKNOWN => unknown = unknown.or(Some(id)),
                _ => {}
            }
            ids.entry(p.clone()).or_insert(id);
        }
        for list in user.values_mut() {
            list.sort_by_key(|b| std::cmp::Reverse(b.0.len()));
        }
        Spm {
            ids,
            scores,
            types: types.to_vec(),
            bytes,
            unknown,
            add_space_prefix: meta_bool(ct, "tokenizer.ggml.add_space_prefix").unwrap_or(true),
            user,
        }
    }

    /// Encodes `text`, splitting out user-defined pieces first.
    fn encode(&self, text: &str, first: bool, out: &mut Vec<u32>) {
        let mut start = 0;
        let mut i = 0;
        let mut prefix = first && self.add_space_prefix;
        while i < text.len() {
            let c = text[i..].chars().next().expect("char boundary");
            let hit = self.user.get(&c).and_then(|list| {
                list.iter()
                    .find(|(p, _)| text[i..].starts_with(p.as_str()))
                    .map(|(p, id)| (p.len(), *id))
            });
            match hit {
                Some((len, id)) => {
                    if start < i {
                        self.encode_piece(&text[start..i], prefix, out);
                        prefix = false;
                    }
                    out.push(id);
                    i += len;
                    start = i;
                }
                None => i += c.len_utf8(),
            }
        }
        if start < text.len() {
            self.encode_piece(&text[start..], prefix, out);
        }
    }

    /// Encodes a run without user-defined pieces: spaces become `▁`, every character is
    /// a symbol, and the adjacent pair whose merged piece has the highest score is merged
    /// until no merged piece is in the vocabulary; a symbol not in the vocabulary falls
    /// back to its bytes.
    fn encode_piece(&self, text: &str, prefix: bool, out: &mut Vec<u32>) {
        let mut s = String::with_capacity(text.len() + 3);
        if prefix {
            s.push(SPACE);
        }
        for c in text.chars() {
            s.push(if c == ' ' { SPACE } else { c });
        }
        // Symbols as (start, len) with a doubly linked list over them.
        let mut start: Vec<usize> = Vec::new();
        let mut len: Vec<usize> = Vec::new();
        for (at, c) in s.char_indices() {
            start.push(at);
            len.push(c.len_utf8());
        }
        let n = start.len();
        let mut prev: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
        let mut next: Vec<Option<usize>> = (0..n).map(|i| (i + 1 < n).then_some(i + 1)).collect();
        let mut heap = BinaryHeap::new();
        let try_pair =
            |heap: &mut BinaryHeap<Bigram>, l: usize, r: usize, start: &[usize], len: &[usize]| {
                let piece = &s[start[l]..start[r] + len[r]];
                if let Some(&id) = self.ids.get(piece) {
                    let t = self.types[id as usize];
                    if t == TYPE_NORMAL || t == TYPE_USER_DEFINED {
                        heap.push(Bigram {
                            score: self.scores[id as usize],
                            left: l,
                            right: r,
                            len: piece.len(),
                        });
                    }
                }
            };
        for i in 1..n {
            try_pair(&mut heap, i - 1, i, &start, &len);
        }
        while let Some(b) = heap.pop() {
            let (l, r) = (b.left, b.right);
            // Stale: one side was merged away or grew since this pair was queued.
            if len[l] == 0 || len[r] == 0 || next[l] != Some(r) || len[l] + len[r] != b.len {
                continue;
            }
            len[l] += len[r];
            len[r] = 0;
            next[l] = next[r];
            if let Some(nr) = next[r] {
                prev[nr] = Some(l);
            }
            if let Some(p) = prev[l] {
                try_pair(&mut heap, p, l, &start, &len);
            }
            if let Some(nr) = next[l] {
                try_pair(&mut heap, l, nr, &start, &len);
            }
        }
        let mut i = Some(0).filter(|_| n > 0);
        while let Some(k) = i {
            let piece = &s[start[k]..start[k] + len[k]];
            match self.ids.get(piece) {
                Some(&id) if self.types[id as usize] != TYPE_CONTROL => out.push(id),
                _ => {
                    for b in piece.bytes() {
                        match (self.bytes[b as usize], self.unknown) {
                            (Some(id), _) | (None, Some(id)) => out.push(id),
                            (None, None) => {}
                        }
                    }
                }
            }
            i = next[k];
        }
    }

    fn decode(&self, ids: &[u32], pieces: &[String]) -> String {
        let mut bytes: Vec<u8> = Vec::new();
        for &id in ids {
            let i = id as usize;
            let Some(p) = pieces.get(i) else { continue };
            match self.types.get(i).copied().unwrap_or(TYPE_NORMAL) {
                TYPE_CONTROL | TYPE_UNKNOWN => {}
                TYPE_BYTE => {
                    if let Some(b) = p
                        .strip_prefix("<0x")
                        .and_then(|h| h.strip_suffix('>'))
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                    {
                        bytes.push(b);
                    }
                }
                _ => bytes.extend(p.replace(SPACE, " ").as_bytes()),
            }
        }
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if self.add_space_prefix && text.starts_with(' ') {
            text.remove(0);
        }
        text
    }
}
