//! The thread that flushes for `IncrementalAsync`.

use std::fs::File;
use std::io;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// It is handed a duplicate of the log's descriptor each time a flush is
/// due; one waits at most, so flushes requested while one runs fold into
/// the next.
pub(crate) struct Flusher {
    tx: Option<SyncSender<File>>,
    failed: Arc<Mutex<Option<io::Error>>>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    pub(crate) fn start() -> Flusher {
        let (tx, rx) = sync_channel::<File>(1);
        let failed = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&failed);
        let thread = std::thread::spawn(move || {
            for f in rx {
                if let Err(e) = f.sync_data() {
                    *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
            }
        });
        Flusher {
            tx: Some(tx),
            failed,
            thread: Some(thread),
        }
    }

    /// Ask for a flush of `file`; an error of an earlier flush is returned.
    pub(crate) fn request(&self, file: &File) -> io::Result<()> {
        if let Some(e) = self.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        if let Some(tx) = &self.tx {
            // Full: a flush is already queued and will cover this data too.
            let _ = tx.try_send(file.try_clone()?);
        }
        Ok(())
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
