-- wrk script: every request uploads a different note. The body file holds one multipart upload
-- whose WAV samples contain a 24-character placeholder; each request replaces it with the run's
-- nonce, the wrk thread's number and a counter, so no two requests share an audio hash and the
-- WAV header stays valid (same length).
-- Arguments: BODY_FILE NONCE(8 chars) BOUNDARY [TOKEN]
local placeholder = string.rep("@", 24)
local threads = {}
local next_thread = 0

function setup(thread)
  thread:set("thread_number", next_thread)
  next_thread = next_thread + 1
  table.insert(threads, thread)
end

local prefix, suffix, nonce
local counter = 0

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local body = file:read("*a")
  file:close()
  local at = assert(body:find(placeholder, 1, true), "no placeholder in the body file")
  prefix = body:sub(1, at - 1)
  suffix = body:sub(at + #placeholder)
  nonce = args[2]
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. args[3]
  if args[4] ~= nil and args[4] ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. args[4]
  end
end

function request()
  counter = counter + 1
  local id = string.format("%s%04d%012d", nonce, thread_number, counter)
  return wrk.format(nil, nil, nil, prefix .. id .. suffix)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "connect=%d read=%d write=%d status=%d timeout=%d\n",
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
