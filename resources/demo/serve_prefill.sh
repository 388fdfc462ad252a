#!/usr/bin/env bash
# Demo prefill server (OpsDeck demo: opsdeck-sim plays SGLang's prefill worker).
# A real one would exec: python3 -m sglang.launch_server --disaggregation-mode prefill ...
# Knobs are exported here, as in a production serve script.
export SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT=300
# A KV transfer that hangs fails after 5 s (--kv-transfer-timeout): a hang shows at once.
exec "@SIM@" --role prefill --host 127.0.0.1 --port @PREFILL_PORT@ \
  --disaggregation-bootstrap-port @BOOTSTRAP_PORT@ --transfer-backend @BACKEND@ \
  --served-model-name @MODEL@ --ready-delay 2 --exit-delay 1 --kv-transfer-timeout 5
