#pragma once

#include "auditlog.h"

#include <chrono>

namespace opsdeck::history {

/// Where an audit log's chain key lives: the secret store (keychain, or the
/// plaintext fallback when the user switched it on), one key per log under
/// `audit/chain-key/<16 hex of SHA-256 of the log's canonical path>`. A log
/// begun while the store answers gets one (32 random bytes from the system's
/// generator); a log begun without stays unkeyed. When no store answers,
/// check() says what it could not check, with the store's reason. Moving the
/// data dir loses the key's name: its log then reads as broken. The key and
/// the log's anchor (AuditAnchor) are read together, once per process.
class AuditKey
{
public:
    /// The key's name in the secret store for the log at `logPath`.
    static QString secretName(const QString &logPath);
    /// Asks the store for the log's key without waiting (creating one when
    /// the log is new); the answer is kept for the process. Call on the
    /// store's thread (the GUI or main thread), before any thread appends.
    static void prefetch(const QString &logPath);
    /// A key source for AuditLog backed by SecretStore::shared() and the
    /// keys prefetch() keeps. On the store's thread it asks and waits (a
    /// local event loop: the CLI); on any other thread it only waits, at most
    /// 5 s, for the prefetch's answer, so that a GUI thread joining that
    /// thread never deadlocks with it.
    static AuditLog::KeySource fromSecretStore();
    /// Keeps a keyed log's AuditAnchor in the secret store, as
    /// `audit/chain-anchor/<16 hex>` (the same hash as the key's name). It
    /// only sends it, from any thread: settle() waits for those. The store's
    /// anchor is read first and moved only when the log still holds it and
    /// the new one reaches past it (another process may have moved it past
    /// an older log put back since this one read it).
    static AuditLog::AnchorSink anchorSink();
    /// On the store's thread (a program about to exit): waits, at most
    /// `deadline`, until the keys and anchors sent are kept.
    static void settle(std::chrono::milliseconds deadline = std::chrono::seconds(5));
    /// `<dataDir>/audit.jsonl` (AppPaths::dataDir(dataDir)) keyed and
    /// anchored by the secret store; its key and anchor prefetched.
    static std::shared_ptr<AuditLog> inDataDir(const QString &dataDir);
};

} // namespace opsdeck::history
