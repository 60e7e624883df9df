-- What bench/wrk.ts has wrk send: every request with the admin token, and on `done` one line of
-- JSON with the figures bench/wrk.ts reads.
--
-- The bearer token comes from WRK_TOKEN: the environment, not wrk's command line, which every user
-- of the machine can read in ps.
-- Arguments after wrk's `--`:
--   (none)                 GET the URL, the same request every time (wrk builds it once)
--   post <file> <prefix>   POST the file's body with "{{name}}" replaced by <prefix>-1, <prefix>-2,
--                          ...: a create needs a name no other create took
local token = os.getenv("WRK_TOKEN")
if token then
  wrk.headers["Authorization"] = "Bearer " .. token
end
wrk.headers["Accept"] = "application/json"

function init(args)
  if args[1] ~= "post" then
    return
  end
  local f = assert(io.open(args[2], "rb"))
  local body = f:read("*a")
  f:close()
  local at = assert(string.find(body, "{{name}}", 1, true), "no {{name}} in " .. args[2])
  local head, tail = string.sub(body, 1, at - 1), string.sub(body, at + 8)
  local prefix = args[3]
  local n = 0
  wrk.headers["Content-Type"] = "application/json"
  -- Defined here, so that GETs stay static: wrk calls request() for each request only when the
  -- script defines it.
  function request()
    n = n + 1
    return wrk.format("POST", nil, nil, head .. prefix .. "-" .. n .. tail)
  end
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
