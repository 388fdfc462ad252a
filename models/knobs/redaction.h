#pragma once

#include "knobchange.h"
#include "servescript.h"

#include <QByteArray>
#include <QString>

namespace opsdeck::knobs {

/// True for a knob whose value is a credential by its name: it contains
/// TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, API_KEY or ends in _KEY
/// (`HF_TOKEN`, `SGLANG_API_KEY`, `--api-key`), case-insensitive. Such
/// values never reach the audit log, history markers or logs: a knob edit
/// records `<redacted>` and the value's length instead.
bool isSecretKnob(const QString &name);
/// `value`, or `<redacted, N bytes>` for a secret knob.
QString redactedValue(const QString &name, const QString &value);
/// The script's bytes with every secret knob's value replaced by
/// `<redacted>`, in comments too (`# export HF_TOKEN=…`, a knob OpsDeck
/// commented out): what the audit entry's diff is made from.
QByteArray redactedScript(const ServeScript &script);
/// `change` with secret values redacted, for the audit log.
KnobChange redactedChange(KnobChange change);

} // namespace opsdeck::knobs
