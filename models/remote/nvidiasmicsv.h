#pragma once

#include "gpusample.h"

#include <QByteArray>
#include <QStringList>
#include <QVector>

namespace opsdeck::remote {

/// Parses the output of `nvidia-smi --query-gpu=FIELDS --format=csv,noheader,nounits`
/// (one line per GPU, values in FIELDS order, separated by ", "). Pure, any thread.
///
/// The format, as nvidia-smi prints it (see tests/data/nvidia-smi for recorded runs):
/// - values are not quoted, so a comma inside the GPU name cannot be told from a
///   separator by itself. Lines are split by field count instead: when a line has
///   more parts than FIELDS, the surplus belongs to `name` (the one free-text field
///   queried) and is joined back with ",". With no `name` in FIELDS, such a line is an error.
/// - spaces around values are dropped (some drivers pad numbers: `,     0,`);
///   CRLF and LF both end a line; empty lines are skipped.
/// - `[N/A]`, `N/A`, and any `[...]` value (`[Not Supported]`, `[Unknown Error]`,
///   `[Insufficient Permissions]`) mean "no value": the field stays absent and the
///   reason goes to GpuSample::unavailable.
/// - lines starting with `WARNING:` (e.g. "WARNING: infoROM is corrupted at gpu ...")
///   are kept in `warnings`, not parsed as GPUs.
/// Errors: a line with fewer parts than FIELDS, or a number field that is not a
/// number, fails the whole parse with `error` naming the line number and quoting
/// the line; this is how a message printed instead of CSV ("NVIDIA-SMI has failed
/// because it couldn't communicate with the NVIDIA driver...") is reported: `error`
/// then is that message itself.
class NvidiaSmiCsv
{
public:
    struct Result
    {
        QVector<GpuSample> gpus;
        QStringList warnings;
        QString error; ///< empty on success
        bool ok() const { return error.isEmpty(); }
    };

    /// The fields OpsDeck asks for: index, uuid, utilization.gpu, memory.used,
    /// memory.total, temperature.gpu, power.draw, power.limit, name. The name is
    /// last so that even a reader splitting on every comma keeps the numbers right.
    static QStringList defaultFields();
    /// `nvidia-smi --query-gpu=<defaultFields> --format=csv,noheader,nounits`.
    static QString defaultCommand();

    static Result parse(const QByteArray &output, const QStringList &fields = defaultFields());
};

} // namespace opsdeck::remote
