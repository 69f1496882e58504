// profilegen: progressive enhancements. Every page works without this file.
(function () {
  "use strict";
  // The header's search box goes to the authors index without JavaScript, and to the
  // search page with it.
  document.querySelectorAll("form.site-search[data-search]").forEach(function (form) {
    form.setAttribute("action", form.getAttribute("data-search"));
  });
  // A "Copy" button beside each citation block (the text itself is always on the page).
  document.querySelectorAll("pre.bibtex").forEach(function (pre) {
    if (!navigator.clipboard) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy BibTeX";
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(pre.textContent).then(
        function () { button.textContent = "Copied"; },
        function () { button.textContent = "Copy failed: select the text"; }
      );
      setTimeout(function () { button.textContent = "Copy BibTeX"; }, 2500);
    });
    pre.insertAdjacentElement("afterend", button);
  });
})();
