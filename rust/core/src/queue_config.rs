//! Settings of one queue that every opener of the store shares: its delivery limit, its
//! dead-letter queue and its capacity. Persisted in `meta` under `c/<name>`, by name, so they
//! can be given before the queue exists and outlive its being dropped and created again.

use crate::error::{Error, Result};
use crate::keys;

/// Suffix of a queue's dead-letter queue when its settings name none.
pub const DEAD_LETTER_SUFFIX: &str = ".dead";

/// Largest capacity accepted (Java's `long` must hold it).
pub const MAX_CAPACITY: u64 = i64::MAX as u64;

/// Layout version of an encoded `QueueConfig` (its first byte).
const FORMAT: u8 = 1;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueConfig {
    /// Deliveries after which an entry that comes back unconsumed (rollback, failed commit,
    /// crash) is moved to the dead-letter queue instead. `None`: the store's default
    /// (`StoreOptions::max_deliveries`); `Some(0)`: no limit, whatever the default.
    pub max_deliveries: Option<u32>,
    /// Where entries over the limit go; `None`: `<queue>.dead`.
    pub dead_letter_queue: Option<String>,
    /// Most entries the queue may hold once a commit is written (entries claimed by open
    /// transactions still count); 0: no limit.
    pub capacity: u64,
    /// Most payload bytes its entries may hold then, as stored (after compression), each entry
    /// counting the size its object had when the entry was committed; 0: no limit.
    pub capacity_bytes: u64,
}

impl QueueConfig {
    /// The limit in force given the store's default (0: none).
    pub fn effective_max_deliveries(&self, store_default: u32) -> u32 {
        self.max_deliveries.unwrap_or(store_default)
    }

    /// Refuses settings that could not work for `queue`.
    pub fn validate(&self, queue: &str) -> Result<()> {
        keys::validate_queue_name(queue)?;
        if self.capacity > MAX_CAPACITY || self.capacity_bytes > MAX_CAPACITY {
            return Err(Error::InvalidArgument(format!(
                "capacity of queue '{queue}' ({} entries, {} bytes) is over the limit of {MAX_CAPACITY}",
                self.capacity, self.capacity_bytes
            )));
        }
        if let Some(dlq) = &self.dead_letter_queue {
            keys::validate_queue_name(dlq)
                .map_err(|e| Error::InvalidArgument(format!("dead-letter queue of '{queue}': {e}")))?;
            if dlq == queue {
                return Err(Error::InvalidArgument(format!(
                    "queue '{queue}' cannot be its own dead-letter queue"
                )));
            }
        } else if self.max_deliveries.is_some_and(|n| n > 0) {
            keys::validate_queue_name(&default_dead_letter_queue(queue))
                .map_err(|e| Error::InvalidArgument(format!("queue '{queue}' needs a dead-letter queue named explicitly: '<name>{DEAD_LETTER_SUFFIX}' is too long ({e})")))?;
        }
        Ok(())
    }

    /// The dead-letter queue of `queue` under these settings.
    pub fn dead_letter_queue_of(&self, queue: &str) -> String {
        self.dead_letter_queue
            .clone()
            .unwrap_or_else(|| default_dead_letter_queue(queue))
    }

    pub fn is_default(&self) -> bool {
        *self == QueueConfig::default()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut v = vec![FORMAT];
        match self.max_deliveries {
            Some(n) => {
                v.push(1);
                v.extend_from_slice(&n.to_le_bytes());
            }
            None => v.push(0),
        }
        v.extend_from_slice(&self.capacity.to_le_bytes());
        v.extend_from_slice(&self.capacity_bytes.to_le_bytes());
        if let Some(dlq) = &self.dead_letter_queue {
            v.extend_from_slice(dlq.as_bytes());
        }
        v
    }

    pub fn decode(v: &[u8], queue: &str) -> Result<QueueConfig> {
        let corrupt = || Error::Corrupt(format!("settings of queue '{queue}'"));
        let (&format, rest) = v.split_first().ok_or_else(corrupt)?;
        if format != FORMAT {
            return Err(Error::Corrupt(format!(
                "settings of queue '{queue}' are in layout {format}; this version reads layout {FORMAT}"
            )));
        }
        let (&has_max, rest) = rest.split_first().ok_or_else(corrupt)?;
        let (max_deliveries, rest) = match has_max {
            0 => (None, rest),
            1 if rest.len() >= 4 => (
                Some(u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"))),
                &rest[4..],
            ),
            _ => return Err(corrupt()),
        };
        if rest.len() < 16 {
            return Err(corrupt());
        }
        let capacity = u64::from_le_bytes(rest[..8].try_into().expect("8 bytes"));
        let capacity_bytes = u64::from_le_bytes(rest[8..16].try_into().expect("8 bytes"));
        let name = &rest[16..];
        let dead_letter_queue = if name.is_empty() {
            None
        } else {
            Some(String::from_utf8(name.to_vec()).map_err(|_| corrupt())?)
        };
        Ok(QueueConfig {
            max_deliveries,
            dead_letter_queue,
            capacity,
            capacity_bytes,
        })
    }
}

pub fn default_dead_letter_queue(queue: &str) -> String {
    format!("{queue}{DEAD_LETTER_SUFFIX}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_garbage_is_refused() {
        for c in [
            QueueConfig::default(),
            QueueConfig {
                max_deliveries: Some(0),
                dead_letter_queue: None,
                capacity: 1,
                capacity_bytes: 0,
            },
            QueueConfig {
                max_deliveries: Some(u32::MAX),
                dead_letter_queue: Some("poison €".into()),
                capacity: MAX_CAPACITY,
                capacity_bytes: 7,
            },
        ] {
            assert_eq!(QueueConfig::decode(&c.encode(), "q").unwrap(), c);
        }
        assert!(QueueConfig::decode(&[], "q").is_err());
        assert!(QueueConfig::decode(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0], "q")
            .unwrap_err()
            .to_string()
            .contains("layout 2"));
        assert!(QueueConfig::decode(&[1, 1, 5], "q").is_err());
        assert!(QueueConfig::decode(&[1, 0, 1, 2], "q").is_err());
        assert!(
            QueueConfig::decode(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0], "q").is_err(),
            "no byte capacity"
        );
    }

    #[test]
    fn limits_and_dead_letter_names_are_checked() {
        let default = QueueConfig::default();
        assert_eq!(default.dead_letter_queue_of("in"), "in.dead");
        assert_eq!(default.effective_max_deliveries(3), 3);
        assert_eq!(
            QueueConfig {
                max_deliveries: Some(0),
                ..default.clone()
            }
            .effective_max_deliveries(3),
            0
        );
        let own = QueueConfig {
            dead_letter_queue: Some("in".into()),
            ..default.clone()
        };
        assert!(own
            .validate("in")
            .unwrap_err()
            .to_string()
            .contains("its own dead-letter queue"));
        let too_big = QueueConfig {
            capacity: MAX_CAPACITY + 1,
            ..default.clone()
        };
        assert!(too_big.validate("in").is_err());
        assert!(QueueConfig {
            capacity_bytes: u64::MAX,
            ..default.clone()
        }
        .validate("in")
        .is_err());
        let long = "x".repeat(keys::MAX_QUEUE_NAME_BYTES);
        let limited = QueueConfig {
            max_deliveries: Some(2),
            ..default.clone()
        };
        assert!(limited
            .validate(&long)
            .unwrap_err()
            .to_string()
            .contains("named explicitly"));
        assert!(QueueConfig {
            dead_letter_queue: Some("short".into()),
            ..limited
        }
        .validate(&long)
        .is_ok());
        assert!(QueueConfig {
            dead_letter_queue: Some(String::new()),
            ..default
        }
        .validate("in")
        .is_err());
    }
}
