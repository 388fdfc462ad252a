#pragma once

#include <QString>

namespace opsdeck::secrets {

/// Whether the desktop keychain's default collection is locked, asked of the
/// Secret Service on the session bus (`org.freedesktop.secrets`, object
/// `/org/freedesktop/secrets/aliases/default`, property
/// `org.freedesktop.Secret.Collection.Locked`; the freedesktop.org Secret
/// Service API). A locked keychain that cannot show its unlock prompt (no
/// display, a headless session) answers a lookup with "no such item", which
/// must not be taken for "the key was never made": a log's chain key read as
/// missing would let a log rewritten without it pass as unkeyed.
///
/// Thread: any thread with a Qt event dispatcher or none (a blocking D-Bus
/// call of at most 2 s). Errors: no session bus, no Secret Service or no
/// answer reads as "not known to be locked" (an empty string).
class KeychainLockState
{
public:
    /// Empty when the default collection is unlocked or its state cannot be
    /// told; else the sentence to show ("the keychain's default collection is
    /// locked: unlock it (log in to the desktop, or `gnome-keyring-daemon
    /// --unlock`) and try again").
    static QString lockedReason();
};

} // namespace opsdeck::secrets
