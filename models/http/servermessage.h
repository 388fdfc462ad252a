#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::probes {

/// Why a server refused, in its own words, from an error answer's JSON body:
/// OpenAI's {"error":{"message"}} (SGLang, vLLM and the router answer so),
/// SGLang's own {"message"}, or {"error":"Unauthorized"} from its API-key
/// check. Empty when the body is not JSON or says none of these. At most
/// 200 characters, on one line (an engine's traceback never fills a status).
/// Any thread.
QString serverMessage(const QByteArray &body);

/// `text` as one printable line of at most `maxChars` UTF-16 units (never
/// half a character): control characters (a terminal's escape sequences among
/// them) and format characters (bidi overrides, zero-width spaces, which
/// would reorder or hide the words around them) are dropped, then whitespace
/// runs become one space; a server's words end up on a terminal, in the
/// window and in the audit log. Any thread.
QString printableLine(const QString &text, qsizetype maxChars = 200);

/// `text` with every occurrence of `secret` (an API key) replaced by
/// "[API key]", also where its characters are split by whitespace, control
/// or format characters or their JSON escapes (a server may echo "sk-ab\ncd"
/// that printableLine() would join again); unchanged when `secret` is empty.
/// Redact before printableLine() cuts a text: a cut key is no longer found.
/// Any thread.
QByteArray redactedSecret(const QByteArray &text, const QByteArray &secret);
QString redactedSecret(const QString &text, const QByteArray &secret);

} // namespace opsdeck::probes
