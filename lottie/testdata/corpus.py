# Writes testdata/corpus/*.json, the Lottie files of the lottie-web comparison
# (TestLottieWebReference): run from the repository root, python3 lottie/testdata/corpus.py.
import json, base64, zlib, struct, os
out = 'lottie/testdata/corpus'
W = H = 100
def st(v): return {"a":0,"k":v}
def anim(*kfs, ease=True):
    ks=[]
    for i,(t,v) in enumerate(kfs):
        v = v if isinstance(v,list) else [v]
        k={"t":t,"s":v}
        if i < len(kfs)-1 and ease:
            n=len(v)
            k["o"]={"x":[0.33]*n,"y":[0]*n}; k["i"]={"x":[0.67]*n,"y":[1]*n}
        elif i < len(kfs)-1:
            n=len(v)
            k["o"]={"x":[0]*n,"y":[0]*n}; k["i"]={"x":[1]*n,"y":[1]*n}
        ks.append(k)
    return {"a":1,"k":ks}
def tr(p=(0,0),a=(0,0),s=(100,100),r=0,o=100):
    return {"ty":"tr","p":p if isinstance(p,dict) else st(list(p)),"a":st(list(a)),"s":s if isinstance(s,dict) else st(list(s)),"r":r if isinstance(r,dict) else st(r),"o":o if isinstance(o,dict) else st(o)}
def ks(p=(50,50,0),a=(0,0,0),s=(100,100,100),r=0,o=100):
    f=lambda x: x if isinstance(x,dict) else st(list(x) if isinstance(x,tuple) else x)
    return {"o":f(o),"r":f(r),"p":f(p),"a":f(a),"s":f(s)}
def fill(c,o=100): return {"ty":"fl","c":st(c) if not isinstance(c,dict) else c,"o":st(o),"r":1}
def stroke(c,w,o=100,lc=2,lj=2): return {"ty":"st","c":st(c),"o":st(o),"w":st(w),"lc":lc,"lj":lj,"ml":4}
def rect(w,h,r=0,p=(0,0)): return {"ty":"rc","d":1,"s":st([w,h]) ,"p":st(list(p)),"r":st(r)}
def ell(w,h,p=(0,0)): return {"ty":"el","d":1,"s":st([w,h]),"p":st(list(p))}
def grp(*items, t=None): return {"ty":"gr","it":list(items)+[t or tr()]}
def shape_layer(ind, shapes, k=None, ip=0, op=60, **extra):
    l={"ddd":0,"ind":ind,"ty":4,"nm":"l%d"%ind,"sr":1,"ks":k or ks(),"ao":0,"shapes":shapes,"ip":ip,"op":op,"st":0,"bm":0}
    l.update(extra); return l
def path(v, i=None, o=None, c=True):
    n=len(v); return {"a":0,"k":{"i":i or [[0,0]]*n,"o":o or [[0,0]]*n,"v":v,"c":c}}
def doc(layers, assets=None, op=60, fr=30):
    d={"v":"5.7.4","fr":fr,"ip":0,"op":op,"w":W,"h":H,"nm":"t","ddd":0,"assets":assets or [],"layers":layers}
    return d
def png(w,h):
    raw=b''
    for y in range(h):
        raw+=b'\x00'
        for x in range(w):
            if (x//4+y//4)%2==0: raw+=bytes([230,40,40,255])
            else: raw+=bytes([40,80,220,255])
    def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)
    return b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,8,6,0,0,0))+chunk(b'IDAT',zlib.compress(raw))+chunk(b'IEND',b'')
files={}
files['rect']=doc([shape_layer(1,[grp(rect(50,36,6),fill([0.9,0.2,0.1,1]))], ks(r=anim((0,0),(60,90))))])
files['ellipse']=doc([shape_layer(1,[grp(ell(60,40),fill([0.1,0.6,0.9,1]))], ks(p=anim((0,[30,50,0]),(60,[70,50,0])),s=anim((0,[60,60,100]),(60,[120,120,100]))))])
files['star']=doc([shape_layer(1,[grp({"ty":"sr","sy":1,"d":1,"pt":st(5),"p":st([0,0]),"r":anim((0,0),(60,72)),"ir":st(16),"is":st(0),"or":st(38),"os":st(0)},fill([1,0.8,0.1,1])),
   grp({"ty":"sr","sy":2,"d":1,"pt":st(6),"p":st([28,28]),"r":st(15),"or":st(14),"os":st(0)},fill([0.2,0.2,0.8,1])),
   grp({"ty":"sr","sy":1,"d":1,"pt":st(5),"p":st([-30,-30]),"r":st(20),"ir":st(6),"is":st(0),"or":st(14),"os":st(0)},fill([0.8,0.2,0.8,1]))])])
files['path']=doc([shape_layer(1,[grp({"ty":"sh","ks":anim((0,[{"i":[[0,0],[-10,0],[0,0]],"o":[[10,0],[0,0],[0,0]],"v":[[-30,20],[0,-30],[30,20]],"c":True}]),(60,[{"i":[[0,0],[-20,10],[0,0]],"o":[[20,-10],[0,0],[0,0]],"v":[[-35,25],[0,-20],[35,25]],"c":True}]))},fill([0.2,0.7,0.3,1]))])])
files['stroke']=doc([shape_layer(1,[grp({"ty":"sh","ks":path([[-35,-20],[0,25],[35,-20]],c=False)},stroke([0.9,0.9,0.2,1],8)),
   grp(ell(30,30),stroke([0.3,0.9,0.9,1],4,lc=1,lj=1),t=tr(p=(0,-25)))],ks(r=anim((0,0),(60,45))))])
files['gradient']=doc([shape_layer(1,[grp(rect(80,30),{"ty":"gf","o":st(100),"r":1,"s":st([-40,0]),"e":st([40,0]),"t":1,"g":{"p":3,"k":anim((0,[0,1,0,0,0.5,0,1,0,1,0,0,1]),(60,[0,0,0,1,0.5,1,1,0,1,1,0,0]))}},t=tr(p=(0,-25))),
   grp(ell(50,50),{"ty":"gf","o":st(100),"r":1,"s":st([0,0]),"e":st([25,0]),"t":2,"h":st(0),"a":st(0),"g":{"p":2,"k":st([0,1,1,1,1,0.6,0,0.6])}},t=tr(p=(0,20)))])])
files['trim']=doc([shape_layer(1,[grp(ell(60,60),stroke([1,0.4,0.1,1],6),{"ty":"tm","s":st(0),"e":anim((0,0),(60,100)),"o":anim((0,0),(60,90)),"m":1})])])
files['mask']=doc([shape_layer(1,[grp(rect(90,90),fill([0.2,0.5,1,1]))],hasMask=True,masksProperties=[
   {"inv":False,"mode":"a","pt":{"a":1,"k":[{"t":0,"s":[{"i":[[0,0]]*4,"o":[[0,0]]*4,"v":[[-30,-30],[30,-30],[30,30],[-30,30]],"c":True}],"o":{"x":0.33,"y":0},"i":{"x":0.67,"y":1}},{"t":60,"s":[{"i":[[0,0]]*4,"o":[[0,0]]*4,"v":[[-10,-40],[40,-10],[10,40],[-40,10]],"c":True}]}]},"o":st(100),"x":st(0),"nm":"m"}])])
files['matte']=doc([shape_layer(1,[grp(ell(60,60),fill([1,1,1,1]))],ks(p=anim((0,[35,50,0]),(60,[65,50,0]))),td=1),
   shape_layer(2,[grp(rect(100,20,p=(0,-20)),fill([1,0.2,0.5,1])),grp(rect(100,20,p=(0,20)),fill([0.2,1,0.5,1])),grp(rect(100,100),fill([0.1,0.1,0.3,1]))],tt=1)])
inner=[shape_layer(1,[grp(rect(30,30),fill([0.9,0.5,0.1,1]))],ks(p=(25,25,0),r=anim((0,0),(60,180)))),
       shape_layer(2,[grp(ell(20,20),fill([0.1,0.9,0.5,1]))],ks(p=anim((0,[10,40,0]),(60,[40,10,0]))))]
def precomp_layer(ind, ref, k, **extra):
    l={"ddd":0,"ind":ind,"ty":0,"nm":"pc","refId":ref,"sr":1,"ks":k,"ao":0,"w":50,"h":50,"ip":0,"op":60,"st":0,"bm":0}
    l.update(extra); return l
files['precomp']=doc([precomp_layer(1,"comp_0",ks(p=(30,30,0),a=(25,25,0))),precomp_layer(2,"comp_0",ks(p=(70,70,0),a=(25,25,0),s=(80,80,100),o=60),st=10)],
   assets=[{"id":"comp_0","layers":inner}])
files['timeremap']=doc([precomp_layer(1,"comp_0",ks(p=(50,50,0),a=(25,25,0),s=(150,150,100)),tm={"a":1,"k":[{"t":0,"s":[1.8],"o":{"x":[0.5],"y":[0]},"i":{"x":[0.5],"y":[1]}},{"t":60,"s":[0.2]}]})],
   assets=[{"id":"comp_0","layers":inner}])
img="data:image/png;base64,"+base64.b64encode(png(40,40)).decode()
files['image']=doc([{"ddd":0,"ind":1,"ty":2,"nm":"img","refId":"image_0","sr":1,"ks":ks(p=(50,50,0),a=(20,20,0),r=anim((0,0),(60,30)),s=anim((0,[100,100,100]),(60,[150,150,100]))),"ao":0,"ip":0,"op":60,"st":0,"bm":0}],
   assets=[{"id":"image_0","w":40,"h":40,"u":"","p":img,"e":1}])
files['parenting']=doc([shape_layer(1,[grp(rect(40,12),fill([0.8,0.8,0.8,1]))],ks(p=(50,50,0),r=anim((0,0),(60,120)))),
   shape_layer(2,[grp(ell(14,14),fill([1,0.3,0.3,1]))],ks(p=(25,0,0),r=anim((0,0),(60,-240))),parent=1),
   shape_layer(3,[grp(rect(6,6),fill([0.3,0.3,1,1]))],ks(p=(10,0,0)),parent=2)])
files['easing']=doc([shape_layer(1,[grp(rect(16,16),fill([1,1,1,1]))],ks(p={"a":1,"k":[
   {"t":0,"s":[15,20,0],"o":{"x":0.8,"y":0},"i":{"x":0.2,"y":1}},{"t":30,"s":[85,20,0],"h":1},{"t":45,"s":[85,80,0],"o":{"x":0.1,"y":0.9},"i":{"x":0.9,"y":0.1}},{"t":60,"s":[15,80,0]}]},
   o=anim((0,100),(60,30),ease=False))),
   {"ddd":0,"ind":2,"ty":1,"nm":"solid","sr":1,"ks":ks(p=(50,50,0),a=(15,15,0),o=anim((0,20),(40,90))),"ao":0,"sw":30,"sh":30,"sc":"#3366cc","ip":0,"op":60,"st":0,"bm":0}])
# in point 10: frame 0 of the comparison is the file's frame 10; a 24 fps file
ip=doc([shape_layer(1,[grp(rect(30,30,4),fill([0.5,0.9,0.2,1]))],ks(p={"a":1,"k":[{"t":10,"s":[20,50,0],"o":{"x":0.3,"y":0},"i":{"x":0.7,"y":1}},{"t":70,"s":[80,50,0]}]},r=anim((10,0),(70,180))),ip=10,op=70)],op=70,fr=24)
ip["ip"]=10
files['inpoint']=ip
os.makedirs(out,exist_ok=True)
for k,v in files.items():
    json.dump(v,open(os.path.join(out,k+'.json'),'w'),separators=(',',':'))
print(sorted(files))
