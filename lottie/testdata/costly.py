# Writes testdata/costly/*.json, Lottie files that pass the default budgets (lottiebudget)
# and are costly to draw large: the renderer-process tests (renderer_test.go, app's
# lottie_test.go) use them. Run from the repository root: python3 lottie/testdata/costly.py.
import json, os
out = 'lottie/testdata/costly'
def st(v): return {"a": 0, "k": v}
def ks(): return {"o": st(100), "r": st(0), "p": st([50, 50, 0]), "a": st([0, 0, 0]), "s": st([100, 100, 100])}
def shape_layer(ind, shapes, **extra):
    l = {"ty": 4, "ind": ind, "ks": ks(), "shapes": shapes, "ip": 0, "op": 60, "st": 0}
    l.update(extra); return l
def precomps(ref, n):
    return [{"ty": 0, "ind": i + 1, "refId": ref, "ks": ks(), "w": 100, "h": 100, "ip": 0, "op": 60, "st": 0} for i in range(n)]
def doc(layers, assets):
    return {"v": "5.7.4", "fr": 30, "ip": 0, "op": 60, "w": 100, "h": 100, "assets": assets, "layers": layers}
# slow: 8,000 layers (a precomp of 100 full-frame half-transparent radial gradients, placed 80
# times): about 10 s of CPU time a frame at 1920 x 1080 on the 2-core VM, 190 MB.
gradient = {"ty": "gf", "o": st(50), "r": 1, "s": st([0, 0]), "e": st([70, 0]), "t": 2, "h": st(0), "a": st(0),
            "g": {"p": 2, "k": st([0, 1, 0, 0, 1, 0, 0, 1])}}
ellipses = [shape_layer(i + 1, [{"ty": "el", "p": st([0, 0]), "s": st([140, 140])}, gradient]) for i in range(100)]
slow = doc(precomps("e", 80), [{"id": "e", "layers": ellipses}])
# mattes: 64 track mattes (a precomp of one matte pair, placed 64 times): rlottie keeps two
# frame-sized surfaces for each, about 1 GB at 1920 x 1080.
pair = [shape_layer(1, [{"ty": "el", "p": st([0, 0]), "s": st([60, 60])}, {"ty": "fl", "c": st([1, 1, 1, 1]), "o": st(100)}], td=1),
        shape_layer(2, [{"ty": "rc", "p": st([0, 0]), "s": st([100, 100]), "r": st(0)}, {"ty": "fl", "c": st([0.2, 1, 0.5, 1]), "o": st(100)}], tt=1)]
mattes = doc(precomps("m", 64), [{"id": "m", "layers": pair}])
os.makedirs(out, exist_ok=True)
for name, d in {"slow": slow, "mattes": mattes}.items():
    json.dump(d, open(os.path.join(out, name + '.json'), 'w'), separators=(',', ':'))
