#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli secret set|delete|check KEY`: the secret store (keychain)
/// from the command line, e.g. `secret set http/decode/api-key` for an
/// inventory's `api_key: secret`.
///  - set: the value comes from stdin (one line from a terminal, with echo
///    off; else all of stdin minus one trailing newline); never printed.
///  - delete: exit 1 when the key is not stored.
///  - check [--json]: says whether the key is stored (`{"key","stored"}`), never
///    the value; exit 1 when it is not.
/// Exit 2 for a bad key or usage, 3 when the keychain does not answer or
/// refuses (the result is unknown), 1 when the action failed.
int runSecret(const QStringList &arguments);

} // namespace opsdeck::cli
