#!/usr/bin/env bash
# Demo decode server (OpsDeck demo: opsdeck-sim plays SGLang's decode worker).
# A real one would exec: python3 -m sglang.launch_server --disaggregation-mode decode ...
# Knobs are exported here, as in a production serve script.
export SGLANG_SM120_MMA_TARGET_CTAS=512
# A KV transfer that hangs fails after 5 s (--kv-transfer-timeout): a hang shows at once.
exec "@SIM@" --role decode --host 127.0.0.1 --port @DECODE_PORT@ \
  --transfer-backend @BACKEND@ --served-model-name @MODEL@ \
  --max-running-requests 64 --ready-delay 3 --exit-delay 1 --kv-transfer-timeout 5
