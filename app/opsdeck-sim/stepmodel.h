#pragma once

#include <string>
#include <vector>

namespace opsdeck::sim {

/// How long one scheduler step takes on the simulated GPU.
///
///   decode  step_ms(batch)  = (A + B x batch) / (1 + gain(batch))
///   prefill step_ms(tokens) = C + D x tokens
///
/// Defaults A = 10 ms, B = 0.4 ms/request, C = 8 ms, D = 0.05 ms/token:
/// step(1) = 10.4 ms, step(16) = 16.4 ms (128 tokens at batch 16 take 2.1 s),
/// step(64) = 35.6 ms, step(96) = 48.4 ms, so decode throughput
/// batch x 1000 / step_ms rises with concurrency and saturates near 1000 / B.
///
/// gain(batch) models the env knob SGLANG_SM120_MMA_TARGET_CTAS (read once at
/// start): with the value 512, gain is 0 up to batch 16, rises linearly to
/// 0.13 at batch 64, falls linearly to 0.06 at batch 96 and stays 0.06 beyond
/// (the incident measured +12.8 % at 64 concurrent requests). Unset or any
/// other value: gain 0. Immutable after construction; thread-safe.
class StepModel
{
public:
    struct Constants
    {
        double decodeBaseMs = 10.0;      ///< A
        double decodePerRequestMs = 0.4; ///< B
        double prefillBaseMs = 8.0;      ///< C
        double prefillPerTokenMs = 0.05; ///< D
    };

    /// `mmaTargetCtas`: value of SGLANG_SM120_MMA_TARGET_CTAS, empty when unset.
    StepModel(Constants constants, std::string mmaTargetCtas);
    /// Reads the knobs from the process environment.
    static StepModel fromEnvironment(Constants constants);

    double decodeStepMs(int batch) const;
    double prefillStepMs(int tokens) const;
    /// Fractional decode speed-up at `batch` from the knobs (0.13 = +13 %).
    double decodeGain(int batch) const;
    const Constants &constants() const { return m_constants; }
    const std::string &mmaTargetCtas() const { return m_mmaTargetCtas; }

    /// Log lines describing the knobs read and the resulting step times.
    std::vector<std::string> describe() const;

private:
    Constants m_constants;
    std::string m_mmaTargetCtas;
    bool m_ctasGain = false;
};

} // namespace opsdeck::sim
