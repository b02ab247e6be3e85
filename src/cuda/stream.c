/* Streams and events of the cuda backend (stubs for now). */
#include "ctensor/cuda.h"

#include "cuda/cuda_impl.h"

#define NYI return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "cuda: not yet")

ct_cuda_impl_stream_t ct_cuda_impl_current_stream(int32_t device)
{
    (void)device;
    return NULL;
}
ct_status ct_cuda_stream_new(int32_t device, int32_t priority, ct_cuda_stream **out)
{
    (void)device, (void)priority, (void)out;
    NYI;
}
void ct_cuda_stream_free(ct_cuda_stream *stream) { (void)stream; }
ct_status ct_cuda_current_stream(int32_t device, ct_cuda_stream **out)
{
    (void)device, (void)out;
    NYI;
}
ct_status ct_cuda_default_stream(int32_t device, ct_cuda_stream **out)
{
    (void)device, (void)out;
    NYI;
}
ct_status ct_cuda_set_stream(ct_cuda_stream *stream)
{
    (void)stream;
    NYI;
}
int32_t ct_cuda_stream_device(const ct_cuda_stream *stream)
{
    (void)stream;
    return 0;
}
uintptr_t ct_cuda_stream_handle(const ct_cuda_stream *stream)
{
    (void)stream;
    return 0;
}
ct_status ct_cuda_stream_synchronize(ct_cuda_stream *stream)
{
    (void)stream;
    NYI;
}
ct_status ct_cuda_stream_query(ct_cuda_stream *stream, bool *done)
{
    (void)stream, (void)done;
    NYI;
}
ct_status ct_cuda_event_new(bool enable_timing, ct_cuda_event **out)
{
    (void)enable_timing, (void)out;
    NYI;
}
void ct_cuda_event_free(ct_cuda_event *event) { (void)event; }
ct_status ct_cuda_event_record(ct_cuda_event *event, ct_cuda_stream *stream)
{
    (void)event, (void)stream;
    NYI;
}
ct_status ct_cuda_stream_wait_event(ct_cuda_stream *stream, ct_cuda_event *event)
{
    (void)event, (void)stream;
    NYI;
}
ct_status ct_cuda_event_synchronize(ct_cuda_event *event)
{
    (void)event;
    NYI;
}
ct_status ct_cuda_event_query(ct_cuda_event *event, bool *done)
{
    (void)event, (void)done;
    NYI;
}
ct_status ct_cuda_event_elapsed_ms(ct_cuda_event *start, ct_cuda_event *end, float *ms)
{
    (void)start, (void)end, (void)ms;
    NYI;
}
