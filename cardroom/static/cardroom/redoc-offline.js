// Loaded before Redoc (templates/drf_spectacular/redoc.html): Redoc's bundle always shows Redocly's logo from
// cdn.redoc.ly (no option turns it off). An image named on another host gets an empty one instead, which Redoc
// treats as failed and leaves out, so the docs page asks nothing of any other host.
(function () {
  function here(value) {
    const url = new URL(value, document.baseURI);
    return /^https?:$/.test(url.protocol) && url.origin !== location.origin ? "data:," : value;
  }
  const src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    ...src, set(value) { src.set.call(this, here(value)); },
  });
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    const isSrc = this instanceof HTMLImageElement && String(name).toLowerCase() === "src";
    return setAttribute.call(this, name, isSrc ? here(value) : value);
  };
})();
