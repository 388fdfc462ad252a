#pragma once

#include <QString>

namespace opsdeck::secrets {

/// Whether any collection of the desktop keychain is locked, asked of the
/// Secret Service on the session bus (`org.freedesktop.secrets`: the
/// service's `Collections` and the default alias, each one's property
/// `org.freedesktop.Secret.Collection.Locked`; the freedesktop.org Secret
/// Service API). All of them: a lookup searches every collection, and the
/// default alias may be pointed at another one. A locked keychain that cannot show its unlock
/// prompt (no display, a headless session) answers a lookup with "no such item", which must not be
/// taken for "the key was never made": a log's chain key read as missing would let a log rewritten
/// without it pass as unkeyed.
///
/// Thread: any thread with a Qt event dispatcher or none (a blocking D-Bus
/// call of at most 2 s). Errors: no session bus, no Secret Service or no
/// answer reads as "not known to be locked" (an empty string).
class KeychainLockState
{
public:
    /// Empty when every collection is unlocked or their state cannot be
    /// told; else the sentence to show, naming the first locked one ("the
    /// keychain's collection login is locked: unlock it (log in to the desktop, or
    /// `gnome-keyring-daemon
    /// --unlock`) and try again").
    static QString lockedReason();
};

} // namespace opsdeck::secrets
