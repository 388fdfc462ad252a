#pragma once

#include "auditlog.h"

namespace opsdeck::history {

/// Where an audit log's chain key lives: the secret store (keychain, or the
/// plaintext fallback when the user switched it on), one key per log under
/// `audit/chain-key/<16 hex of SHA-256 of the log's canonical path>`. A log
/// begun while the store answers gets one (32 random bytes from the system's
/// generator); a log begun without stays unkeyed. When no store answers,
/// check() says what it could not check, with the store's reason. Moving the
/// data dir loses the key's name: its log then reads as broken.
class AuditKey
{
public:
    /// The key's name in the secret store for the log at `logPath`.
    static QString secretName(const QString &logPath);
    /// A key source for AuditLog backed by SecretStore::shared(). Asked once
    /// per log, from the thread of its first append or check: never the GUI
    /// thread's first call (the store's blocking calls run an event loop);
    /// waits at most 5 s for the store.
    static AuditLog::KeySource fromSecretStore();
    /// `<dataDir>/audit.jsonl` (AppPaths::dataDir(dataDir)) keyed by the secret store.
    static std::shared_ptr<AuditLog> inDataDir(const QString &dataDir);
};

} // namespace opsdeck::history
