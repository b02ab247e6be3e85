"""The dtype part of PyTorch's "Tensor Attributes" page, run with `import ctensor as torch`."""
import ctensor as torch

print("dtypes:", ", ".join(repr(d) for d in (torch.float32, torch.half, torch.bfloat16, torch.cdouble,
                                              torch.float8_e4m3fn, torch.uint16)))
print("torch.float is torch.float32:", torch.float is torch.float32)
print("torch.half.is_floating_point:", torch.half.is_floating_point,
      " torch.cfloat.is_complex:", torch.cfloat.is_complex,
      " torch.uint8.is_signed:", torch.uint8.is_signed)
print("torch.promote_types(torch.uint8, torch.int8):", torch.promote_types(torch.uint8, torch.int8))
print("torch.promote_types(torch.long, torch.half):", torch.promote_types(torch.long, torch.half))
print("torch.result_type(5, 5.0):", torch.result_type(5, 5.0))
print("torch.result_type(2, 2.5j):", torch.result_type(2, 2.5j))
print("torch.can_cast(torch.double, torch.float):", torch.can_cast(torch.double, torch.float))
print("torch.can_cast(torch.float, torch.int):", torch.can_cast(torch.float, torch.int))
print(torch.finfo(torch.float16))
print(torch.iinfo(torch.int8))
try:
    torch.promote_types(torch.float8_e4m3fn, torch.float32)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.set_default_dtype(torch.int32)
except TypeError as e:
    print("TypeError:", e)
