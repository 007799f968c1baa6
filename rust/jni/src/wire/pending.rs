//! The operations a Java `Transaction` buffers without crossing JNI, one direct buffer of them
//! handed over per call (`TransactionNative.apply`): defined and read here, written by
//! `org.rockcask.PendingOps`.

use rockcask_core::Uuid;

use crate::error::{BridgeError, BridgeResult};

/// The byte each buffered operation starts with; `org.rockcask.PendingOps` repeats them as
/// constants the library checks (`contract::PENDING_OPS`).
pub const OP_ENQUEUE_NEW: u8 = 1;
pub const OP_PUT: u8 = 2;
pub const OP_ENQUEUE_EXISTING: u8 = 3;

/// Operations the Java `Transaction` buffered without crossing JNI (layout defined here,
/// written by `org.rockcask.PendingOps`, big-endian):
/// `OP_ENQUEUE_NEW`: u16 name length, UTF-8 name, i64 msb, i64 lsb, i32 payload length, payload;
/// `OP_PUT`: i64 msb, i64 lsb, i32 payload length, payload;
/// `OP_ENQUEUE_EXISTING`: u16 name length, UTF-8 name, i64 msb, i64 lsb.
#[derive(Debug, PartialEq, Eq)]
pub enum PendingOp<'a> {
    EnqueueNew {
        queue: &'a str,
        id: Uuid,
        payload: &'a [u8],
    },
    Put {
        id: Uuid,
        payload: &'a [u8],
    },
    EnqueueExisting {
        queue: &'a str,
        id: Uuid,
    },
}

pub struct PendingOps<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> PendingOps<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        PendingOps { buf, at: 0 }
    }

    fn take(&mut self, n: usize) -> BridgeResult<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| {
            BridgeError::InvalidArgument(format!(
                "pending operations truncated at byte {} of {}",
                self.at,
                self.buf.len()
            ))
        })?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn id(&mut self) -> BridgeResult<Uuid> {
        let b = self.take(16)?;
        Ok(Uuid::from_slice(b).expect("16 bytes"))
    }

    fn queue(&mut self) -> BridgeResult<&'a str> {
        let len = u16::from_be_bytes(self.take(2)?.try_into().expect("2 bytes")) as usize;
        std::str::from_utf8(self.take(len)?)
            .map_err(|_| BridgeError::InvalidArgument("queue name is not valid UTF-8".into()))
    }

    fn payload(&mut self) -> BridgeResult<&'a [u8]> {
        let len = i32::from_be_bytes(self.take(4)?.try_into().expect("4 bytes"));
        let len =
            usize::try_from(len).map_err(|_| BridgeError::InvalidArgument(format!("negative payload length {len}")))?;
        self.take(len)
    }

    fn next_op(&mut self) -> BridgeResult<PendingOp<'a>> {
        match self.take(1)?[0] {
            OP_ENQUEUE_NEW => {
                let queue = self.queue()?;
                let id = self.id()?;
                Ok(PendingOp::EnqueueNew {
                    queue,
                    id,
                    payload: self.payload()?,
                })
            }
            OP_ENQUEUE_EXISTING => {
                let queue = self.queue()?;
                Ok(PendingOp::EnqueueExisting { queue, id: self.id()? })
            }
            OP_PUT => {
                let id = self.id()?;
                Ok(PendingOp::Put {
                    id,
                    payload: self.payload()?,
                })
            }
            k => Err(BridgeError::InvalidArgument(format!(
                "unknown pending operation {k} at byte {}",
                self.at - 1
            ))),
        }
    }
}

impl<'a> Iterator for PendingOps<'a> {
    type Item = BridgeResult<PendingOp<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.buf.len() {
            return None;
        }
        let op = self.next_op();
        if op.is_err() {
            self.at = self.buf.len();
        }
        Some(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_operations_parse_and_truncation_is_an_error() {
        let id = Uuid::from_u64_pair(7, 9);
        let mut buf = vec![1u8, 0, 1, b'q'];
        buf.extend_from_slice(id.as_bytes());
        buf.extend_from_slice(&2i32.to_be_bytes());
        buf.extend_from_slice(b"hi");
        buf.push(2);
        buf.extend_from_slice(id.as_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&[3, 0, 2, b'r', b's']);
        buf.extend_from_slice(id.as_bytes());
        let ops: Vec<_> = PendingOps::new(&buf).collect::<BridgeResult<_>>().unwrap();
        assert_eq!(
            ops,
            vec![
                PendingOp::EnqueueNew {
                    queue: "q",
                    id,
                    payload: b"hi"
                },
                PendingOp::Put { id, payload: b"" },
                PendingOp::EnqueueExisting { queue: "rs", id }
            ]
        );
        let cut: Vec<_> = PendingOps::new(&buf[..buf.len() - 2]).collect();
        assert!(cut.last().unwrap().is_err());
        assert!(PendingOps::new(&[9]).next().unwrap().is_err());
    }
}
