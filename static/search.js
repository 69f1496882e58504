// profilegen search: reads the split static index under search/ and shows results as
// you type. Only the shards a query needs are fetched, once each.
(function () {
  "use strict";
  var list = document.getElementById("search-results");
  var input = document.getElementById("search-input");
  var status = document.getElementById("search-status");
  if (!list || !input) return;
  var root = list.getAttribute("data-root") || "";
  var base = list.getAttribute("data-index") || "";
  var MAX_RESULTS = 50;
  var cache = {};
  var metaPromise = null;

  function fetchJson(path) {
    if (!cache[path]) {
      cache[path] = fetch(base + path).then(function (r) {
        if (!r.ok) throw new Error(path + ": " + r.status);
        return r.json();
      });
    }
    return cache[path];
  }
  function meta() {
    if (!metaPromise) metaPromise = fetchJson("meta.json");
    return metaPromise;
  }
  function hex(text) {
    var bytes = new TextEncoder().encode(text);
    var out = "";
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return out;
  }
  // The same words the index holds: lowercase letters and digits, two or more.
  function words(text) {
    var lower = text.toLowerCase();
    var plain = lower.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
    var out = [];
    [lower, plain].forEach(function (t) {
      t.split(/[^\p{L}\p{N}]+/u).forEach(function (w) {
        if (Array.from(w).length >= 2 && out.indexOf(w) < 0) out.push(w);
      });
    });
    return out;
  }
  // Shards that can hold terms starting with `word`: the shard of its longest prefix,
  // or, when the word is shorter than the shards are split, every shard below it.
  function shardsFor(word, keys) {
    var chars = Array.from(word);
    for (var n = 1; n <= chars.length && n <= 4; n++) {
      var key = hex(chars.slice(0, n).join(""));
      if (keys.indexOf(key) >= 0) return [key];
    }
    var prefix = hex(chars.slice(0, 4).join(""));
    return keys.filter(function (k) { return k.indexOf(prefix) === 0; });
  }
  // doc -> best weight among the terms starting with `word`, in the order the documents
  // are first met (terms in order, each term's postings best first, then in the site's
  // order: authors, then papers, each by slug), which ranks equal scores.
  function matches(word, keys) {
    return Promise.all(shardsFor(word, keys).map(function (k) {
      return fetchJson("terms/" + k + ".json");
    })).then(function (shards) {
      var scores = new Map();
      shards.forEach(function (shard) {
        Object.keys(shard).forEach(function (term) {
          if (term.indexOf(word) !== 0) return;
          var exact = term === word ? 2 : 1;
          var postings = shard[term];
          for (var i = 0; i < postings.length; i += 2) {
            var score = postings[i + 1] * exact;
            if ((scores.get(postings[i]) || 0) < score) scores.set(postings[i], score);
          }
        });
      });
      return scores;
    });
  }
  // The query's word groups split in two: those every result must match, and the stop
  // words, which the index leaves out of titles and abstracts (meta.json lists them)
  // but keeps in names. A query of stop words alone asks them of every result.
  function splitStopWords(groups, stop) {
    var isStop = function (g) {
      return g.every(function (w) { return stop.indexOf(w) >= 0; });
    };
    var required = groups.filter(function (g) { return !isStop(g); });
    if (!required.length) return { required: groups, stop: [] };
    return { required: required, stop: groups.filter(isStop) };
  }
  // doc -> best score among the spellings of one word group.
  function groupScores(spellings, keys) {
    return Promise.all(spellings.map(function (w) { return matches(w, keys); }))
      .then(function (maps) {
        var merged = new Map();
        maps.forEach(function (map) {
          map.forEach(function (score, doc) {
            if ((merged.get(doc) || 0) < score) merged.set(doc, score);
          });
        });
        return merged;
      });
  }
  // doc -> score of the documents that match every required word group, with the stop
  // word groups' scores added; a stop word is asked of authors only (ids below
  // `papersFrom`), as a paper's title or abstract may hold it unindexed.
  function scores(split, m) {
    var papersFrom = m.papers_from || 0;
    var all = split.required.concat(split.stop);
    return Promise.all(all.map(function (g) { return groupScores(g, m.shards); }))
      .then(function (perGroup) {
        var total = new Map(perGroup[0]);
        for (var i = 1; i < perGroup.length; i++) {
          var required = i < split.required.length;
          total.forEach(function (score, doc) {
            var other = perGroup[i].get(doc);
            if (other !== undefined) total.set(doc, score + other);
            else if (required || doc < papersFrom) total.delete(doc);
          });
        }
        return total;
      });
  }
  // A query: documents that match every word (either spelling; stop words as above),
  // best first.
  function search(query) {
    var raw = query.trim();
    if (!raw) return Promise.resolve({ total: 0, docs: [] });
    var groups = raw.split(/\s+/).map(words).filter(function (g) { return g.length; });
    if (!groups.length) return Promise.resolve({ total: 0, docs: [] });
    return meta().then(function (m) {
      return scores(splitStopWords(groups, m.stop || []), m).then(function (total) {
        // A stable sort: equal scores keep the order the first word met them in.
        var ranked = Array.from(total.entries()).sort(function (a, b) {
          return b[1] - a[1];
        });
        var top = ranked.slice(0, MAX_RESULTS).map(function (e) { return e[0]; });
        var chunks = Array.from(new Set(top.map(function (d) { return Math.floor(d / m.chunk); })));
        return Promise.all(chunks.map(function (c) { return fetchJson("docs-" + c + ".json"); }))
          .then(function (loaded) {
            var byChunk = {};
            chunks.forEach(function (c, i) { byChunk[c] = loaded[i]; });
            return {
              total: ranked.length,
              docs: top.map(function (d) { return byChunk[Math.floor(d / m.chunk)][d]; })
            };
          });
      });
    });
  }
  function render(query, result) {
    list.textContent = "";
    // Which query the list shows (for tests and assistive tools).
    list.setAttribute("data-query", query);
    result.docs.forEach(function (doc) {
      var item = document.createElement("li");
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = doc.k === "a" ? "Author" : "Paper";
      var link = document.createElement("a");
      link.href = root + doc.u;
      link.textContent = doc.t;
      var detail = document.createElement("span");
      detail.className = "detail";
      detail.textContent = doc.d;
      item.appendChild(kind);
      item.appendChild(link);
      item.appendChild(detail);
      list.appendChild(item);
    });
    if (!query.trim()) status.textContent = "";
    else if (!result.total) status.textContent = "No results for “" + query.trim() + "”.";
    else status.textContent = result.total + (result.total === 1 ? " result" : " results") +
      (result.total > result.docs.length ? ", showing the best " + result.docs.length : "") + ".";
  }
  var latest = 0;
  function run() {
    var query = input.value;
    var ticket = ++latest;
    var url = new URL(window.location.href);
    if (query.trim()) url.searchParams.set("q", query); else url.searchParams.delete("q");
    history.replaceState(null, "", url);
    search(query).then(function (result) {
      if (ticket === latest) render(query, result);
    }, function (error) {
      if (ticket === latest) status.textContent = "Search is unavailable: " + error.message;
    });
  }
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 0);
  });
  input.form.addEventListener("submit", function (event) {
    event.preventDefault();
    run();
  });
  // Arrow keys move between the input and the results.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    var links = Array.prototype.slice.call(list.querySelectorAll("a"));
    if (!links.length) return;
    var index = links.indexOf(document.activeElement);
    if (document.activeElement !== input && index < 0) return;
    event.preventDefault();
    if (event.key === "ArrowDown") links[Math.min(index + 1, links.length - 1)].focus();
    else if (index <= 0) input.focus();
    else links[index - 1].focus();
  });
  var initial = new URLSearchParams(window.location.search).get("q") || "";
  input.value = initial;
  if (initial) run();
  input.focus();
})();
