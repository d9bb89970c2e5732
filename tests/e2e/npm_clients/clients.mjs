// Real LibreTranslate clients from the npm registry, unmodified, against
// edgemt-serve at process.argv[2]: libretranslate 1.0.1 (translate, which
// reads /languages first) and libretranslate-ts 0.5.12 (languages, detect,
// translate with alternatives). Prints one JSON object of what they got.
import { createRequire } from "node:module";

const require = createRequire(process.env.CLIENTS_DIR + "/");
const { translate } = require("libretranslate");
const { libreTranslate } = await import(process.env.CLIENTS_DIR + "/node_modules/libretranslate-ts/dist/bundle.js");

const url = process.argv[2];
const out = {};
out.plain = await translate({ query: "A man is riding a bike.", source: "en", target: "de", apiurl: url });
out.array = await translate({ query: ["A dog runs.", "Two dogs play in the snow."], source: "en", target: "de", apiurl: url });
out.auto = await translate({ query: "Zwei Hunde spielen im Schnee und ein Kind schaut zu.", target: "en", apiurl: url });
try {
  await translate({ query: "x", source: "en", target: "zz", apiurl: url });
  out.unknown = "no error";
} catch (e) {
  out.unknown = e.message;
}
libreTranslate.setApiEndpoint(url);
out.languages = await libreTranslate.listLanguages();
out.detect = await libreTranslate.detect("Ein Mann fährt mit seinem Fahrrad durch die Stadt.");
out.ts = await libreTranslate.translate("A woman in a red dress is singing on a stage.", "en", "de", 2);
out.tsError = await libreTranslate.translate("x", "en", "zz");
console.log(JSON.stringify(out));
