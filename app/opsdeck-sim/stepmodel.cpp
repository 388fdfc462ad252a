#include "stepmodel.h"

#include <cstdio>
#include <cstdlib>

namespace opsdeck::sim {

StepModel::StepModel(Constants constants, std::string mmaTargetCtas)
    : m_constants(constants), m_mmaTargetCtas(std::move(mmaTargetCtas)),
      m_ctasGain(m_mmaTargetCtas == "512")
{
}

StepModel StepModel::fromEnvironment(Constants constants)
{
    const char *ctas = std::getenv("SGLANG_SM120_MMA_TARGET_CTAS");
    return StepModel(constants, ctas ? ctas : "");
}

double StepModel::decodeGain(int batch) const
{
    if (!m_ctasGain || batch <= 16)
        return 0.0;
    // Piecewise linear through (16, 0), (64, 0.13), (96, 0.06); flat beyond 96.
    if (batch <= 64)
        return 0.13 * (batch - 16) / 48.0;
    if (batch <= 96)
        return 0.13 - 0.07 * (batch - 64) / 32.0;
    return 0.06;
}

double StepModel::decodeStepMs(int batch) const
{
    const double raw = m_constants.decodeBaseMs + m_constants.decodePerRequestMs * batch;
    return raw / (1.0 + decodeGain(batch));
}

double StepModel::prefillStepMs(int tokens) const
{
    return m_constants.prefillBaseMs + m_constants.prefillPerTokenMs * tokens;
}

std::vector<std::string> StepModel::describe() const
{
    std::vector<std::string> lines;
    if (m_mmaTargetCtas.empty())
        lines.emplace_back("knob SGLANG_SM120_MMA_TARGET_CTAS: unset (no decode gain)");
    else if (m_ctasGain)
        lines.emplace_back("knob SGLANG_SM120_MMA_TARGET_CTAS=512: decode gain 0 % up to batch "
                           "16, 13 % at 64, 6 % at 96 and beyond");
    else
        lines.emplace_back("knob SGLANG_SM120_MMA_TARGET_CTAS=" + m_mmaTargetCtas +
                           ": not a tuned value, no decode gain");
    char text[256];
    std::snprintf(text, sizeof text,
                  "step model: decode step_ms = (%.3g + %.3g x batch) / (1 + gain); "
                  "prefill step_ms = %.3g + %.3g x tokens; step(1)=%.1f step(16)=%.1f "
                  "step(64)=%.1f step(96)=%.1f ms",
                  m_constants.decodeBaseMs, m_constants.decodePerRequestMs,
                  m_constants.prefillBaseMs, m_constants.prefillPerTokenMs, decodeStepMs(1),
                  decodeStepMs(16), decodeStepMs(64), decodeStepMs(96));
    lines.emplace_back(text);
    return lines;
}

} // namespace opsdeck::sim
