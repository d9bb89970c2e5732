-- wrk script for edgemt-serve: POST /translate, one sentence per request,
-- cycling through SOURCES; each answer is checked against EXPECTED (the
-- CLI's translation of the same line), matched by the X-Request-Id the
-- server echoes. Prints the counts of good, wrong and failed answers.
local sources, expected = {}, {}
local function lines(path, into)
  for line in io.lines(path) do into[#into + 1] = line end
end
lines(os.getenv("SOURCES"), sources)
lines(os.getenv("EXPECTED"), expected)

local function json_string(text)
  return '"' .. text:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"'
end

local counter, threads = 0, {}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init()
  good, wrong, failed = 0, 0, 0
end

function request()
  counter = counter + 1
  local index = (id * 7919 + counter) % #sources + 1
  local body = '{"q":' .. json_string(sources[index]) .. ',"source":"en","target":"de"}'
  return wrk.format("POST", "/translate", {["Content-Type"] = "application/json", ["X-Request-Id"] = tostring(index)}, body)
end

local function unescape(text)
  return (text:gsub('\\(["\\/])', '%1'))
end

function response(status, headers, body)
  if status ~= 200 then
    failed = failed + 1
    return
  end
  local index = tonumber(headers["X-Request-Id"])
  local text = body:match('^{"translatedText":"(.*)"}')
  if index and text and unescape(text) == expected[index] then good = good + 1 else wrong = wrong + 1 end
end

function done(summary, latency, requests)
  local g, w, f = 0, 0, 0
  for _, thread in ipairs(threads) do
    g, w, f = g + thread:get("good"), w + thread:get("wrong"), f + thread:get("failed")
  end
  io.write(string.format("answers: %d good, %d wrong, %d failed; errors: connect %d, read %d, write %d, timeout %d, status %d\n",
                         g, w, f, summary.errors.connect, summary.errors.read, summary.errors.write,
                         summary.errors.timeout, summary.errors.status))
  io.write(string.format("latency_us: p50 %d p99 %d\n", latency:percentile(50), latency:percentile(99)))
end
