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

/// `text` as one printable line of at most `maxChars`: whitespace runs become
/// one space and control characters (a terminal's escape sequences among
/// them) are dropped, since a server's words end up on a terminal and in the
/// audit log. Any thread.
QString printableLine(const QString &text, qsizetype maxChars = 200);

} // namespace opsdeck::probes
