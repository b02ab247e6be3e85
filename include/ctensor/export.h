/* ctensor: symbol visibility. Only declarations marked CT_API leave the shared library. */
#ifndef CTENSOR_EXPORT_H
#define CTENSOR_EXPORT_H

#if defined(_WIN32)
#  if defined(CT_BUILDING_SHARED)
#    define CT_API __declspec(dllexport)
#  elif defined(CT_USING_SHARED)
#    define CT_API __declspec(dllimport)
#  else
#    define CT_API
#  endif
#elif defined(__GNUC__)
#  define CT_API __attribute__((visibility("default")))
#else
#  define CT_API
#endif

#ifdef __cplusplus
#  define CT_EXTERN_C_BEGIN extern "C" {
#  define CT_EXTERN_C_END }
#else
#  define CT_EXTERN_C_BEGIN
#  define CT_EXTERN_C_END
#endif

#endif /* CTENSOR_EXPORT_H */
