/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_backfill_profile.h — the reference profile's functions
 * (ref_backfill_profile.c), named ref_profile_* but otherwise declared as
 * place__profile_* in policies/place_int.h.
 */
#ifndef TARMAC_REF_BACKFILL_PROFILE_H
#define TARMAC_REF_BACKFILL_PROFILE_H

#include "place.h"

typedef struct ref_profile ref_profile;
int ref_profile_create(const place_env *env, uint32_t max_resv, ref_profile **out);
void ref_profile_destroy(ref_profile *p);
void ref_profile_begin(ref_profile *p, const place_view *v);
int ref_profile_reserve(ref_profile *p, const place_view *v, uint32_t i);
int ref_profile_allow(ref_profile *p, const place_view *v, const place_job *j,
                      const place_part *part);
void ref_profile_observe(ref_profile *p, const place_view *v, const place_decision *d);
uint32_t ref_profile_n_resv(const ref_profile *p);
void ref_profile_resv(const ref_profile *p, uint32_t k, uint32_t *node, int64_t *start_us,
                      int64_t *end_us, uint32_t *gpus, uint32_t *queue_index);

#endif
