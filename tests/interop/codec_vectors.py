"""Known answers for tests/codecs.rs: what numcodecs stores for each codec
nczarr-rs implements beyond netCDF-C's (its encode and decode of small
arrays), one JSON list a line: name, codec config, array dtype, array
bytes, encoded bytes, decoded bytes (hex).

Usage: codec_vectors.py > tests/data/numcodecs_vectors.jsonl
(run with the venv's Python: numcodecs 0.16, numpy 2)"""
import numpy as np, numcodecs, lzma, json
out=[]
def case(name, codec, arr):
    e=codec.encode(arr)
    enc=bytes(e) if isinstance(e,(bytes,bytearray,memoryview)) else np.asarray(e).tobytes()
    d=codec.decode(enc)
    dec=bytes(d) if isinstance(d,(bytes,bytearray,memoryview)) else np.asarray(d).tobytes()
    out.append((name, json.dumps(codec.get_config()), arr.dtype.str, arr.tobytes().hex(), enc.hex(), dec.hex()))
case("delta", numcodecs.Delta(dtype='<i4', astype='<i2'), np.array([100,102,50,-3,7,7,-20000,12000],'<i4'))
case("delta_u1", numcodecs.Delta(dtype='|u1'), np.array([5,3,200,0,255],'u1'))
case("delta_f4_f8", numcodecs.Delta(dtype='<f8', astype='<f4'), np.array([1e8,1e8+1,1e8+2,-0.5],'<f8'))
case("delta_be", numcodecs.Delta(dtype='>i2'), np.array([1,300,-5,32000],'>i2'))
case("fso_f8_u1", numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype='<f8', astype='u1'), np.linspace(1000,1001,10,dtype='<f8'))
case("fso_f4_i2", numcodecs.FixedScaleOffset(offset=0.1, scale=3.5, dtype='<f4', astype='<i2'), np.array([0.1,1.7,-3.25,100.5,2.5/3.5+0.1],'<f4'))
case("fso_i4_i2", numcodecs.FixedScaleOffset(offset=5, scale=2, dtype='<i4', astype='<i2'), np.array([5,6,-100,1000],'<i4'))
case("fso_i2_f", numcodecs.FixedScaleOffset(offset=2.5, scale=0.5, dtype='<i2', astype='<i4'), np.array([1,2,3,-7,8],'<i2'))
case("quantize", numcodecs.Quantize(digits=2, dtype='<f8', astype='<f4'), np.linspace(0,1,7,dtype='<f8'))
case("quantize_f4", numcodecs.Quantize(digits=3, dtype='<f4'), np.array([3.14159, -2.71828, 1e-4, 12345.678],'<f4'))
case("bitround_f4", numcodecs.BitRound(keepbits=5), np.array([3.14159, -2.71828, 1e-4, 12345.678, np.inf],'<f4'))
case("bitround_f8", numcodecs.BitRound(keepbits=12), np.array([3.14159, -2.71828, 1e-300, 12345.678],'<f8'))
case("packbits", numcodecs.PackBits(), np.array([1,0,0,1,1,0,1,1,1,0,1],'|b1'))
case("astype", numcodecs.AsType(encode_dtype='<f2', decode_dtype='<f8'), np.array([0.1, 1/3, 65519.0, 1e-7, -2.5],'<f8'))
case("astype_i", numcodecs.AsType(encode_dtype='|i1', decode_dtype='<f4'), np.array([1.9, -1.9, 100.5, -128.0],'<f4'))
case("categorize", numcodecs.Categorize(labels=['female','male','x'], dtype='<U6', astype='<u2'), np.array(['male','female','','x','other'],'<U6'))
case("crc32", numcodecs.CRC32(), np.arange(10,dtype='u1'))
case("adler32_end", numcodecs.Adler32(location='end'), np.arange(10,dtype='u1'))
data=(np.arange(300,dtype='<i4')//7)
case("lzma_xz", numcodecs.LZMA(), data)
case("lzma_alone", numcodecs.LZMA(format=2, preset=1), data)
case("lzma_raw", numcodecs.LZMA(format=3, filters=[dict(id=lzma.FILTER_DELTA, dist=4), dict(id=lzma.FILTER_LZMA2, preset=1)]), data)
case("lzma_xz_crc32_9e", numcodecs.LZMA(check=1, preset=9|lzma.PRESET_EXTREME), data)
# xz with filters: numcodecs encodes, decodes with format 0 (auto) in python
c=numcodecs.LZMA(filters=[dict(id=lzma.FILTER_DELTA, dist=4), dict(id=lzma.FILTER_LZMA2, preset=1)])
enc=c.encode(data); out.append(("lzma_xz_filters", json.dumps(c.get_config()), '<i4', data.tobytes().hex(), enc.hex(), data.tobytes().hex()))
for o in out:
    print(json.dumps(o))
