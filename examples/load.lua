-- wrk script of examples/load.py: requests the paths listed in the file $LOAD_PATHS in
-- turn (each thread from its own offset) and checks every response: status 200, a body
-- as long as its Content-Length, and a whole document for its kind (HTML ends in
-- </html>, JSON in } or ], XML in >). The counts are printed as one JSON line, LOAD {...}.

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("offset", counter * 7919)
  table.insert(threads, thread)
end

local paths = {}
local n = 0
status_errors = 0
truncated = 0
problem = ""

function init(args)
  for line in io.lines(os.getenv("LOAD_PATHS")) do
    if line ~= "" then
      table.insert(paths, line)
    end
  end
  n = offset or 0
end

function request()
  n = n + 1
  return wrk.format("GET", paths[n % #paths + 1])
end

-- How a whole document of a media type ends (wrk does not say which request a response
-- answers, so the kind is read from its Content-Type).
local function ending(content_type)
  if content_type:find("html") then return "</html>%s*$" end
  if content_type:find("json") then return "[%]}]%s*$" end
  if content_type:find("xml") then return ">%s*$" end
  return nil
end

function response(status, headers, body)
  if status ~= 200 then
    status_errors = status_errors + 1
    if problem == "" then problem = "status " .. status end
    return
  end
  local length = tonumber(headers["content-length"] or headers["Content-Length"] or "")
  local kind = headers["content-type"] or headers["Content-Type"] or ""
  local pattern = ending(kind)
  if length ~= #body or (pattern and not body:find(pattern)) then
    truncated = truncated + 1
    if problem == "" then
      problem = "Content-Length " .. tostring(length) .. ", " .. #body .. " bytes of " .. tostring(kind)
    end
  end
end

function done(summary, latency, requests)
  local status, cut, problems = 0, 0, {}
  for _, thread in ipairs(threads) do
    status = status + thread:get("status_errors")
    cut = cut + thread:get("truncated")
    local p = thread:get("problem")
    if p ~= "" then
      table.insert(problems, string.format("%q", "wrk: " .. p))
    end
  end
  io.write(string.format('LOAD {"requests": %d, "status": %d, "truncated": %d, "problems": [%s]}\n',
    summary.requests, status, cut, table.concat(problems, ", ")))
end
