/**
 * A page that is one 1920 px wide canvas of smooth colour fields plus per-pixel grain: the entropy
 * of a photograph, so encoders work as hard as on a photo-heavy page. `head` goes before it.
 */
export function photoPage(height: number, head = ""): string {
  return `<!doctype html><meta charset="utf-8"><title>Photo</title>${head}
<body style="margin:0"><canvas id="c" width="1920" height="${height}"></canvas><script>
const c = document.getElementById("c"), g = c.getContext("2d");
const img = g.createImageData(1920, ${height}); const d = img.data; let s = 7;
const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
for (let y = 0; y < ${height}; y++) for (let x = 0; x < 1920; x++) {
  const i = (y * 1920 + x) * 4, n = rnd() * 40 - 20;
  d[i] = 128 + 90 * Math.sin(x / 97 + y / 211) + n;
  d[i + 1] = 128 + 90 * Math.sin(x / 143 - y / 67) + n;
  d[i + 2] = 128 + 90 * Math.cos((x + y) / 181) + n;
  d[i + 3] = 255;
}
g.putImageData(img, 0, 0);
</script>`;
}
