//! Panics caught at a boundary (`catch_unwind` around a third-party parser, a joined
//! worker thread) become errors carrying the panic's text.

/// Best-effort text of a caught panic's payload (`catch_unwind`, a joined thread).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
