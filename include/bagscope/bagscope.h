/* bagscope/bagscope.h - the umbrella header: include this to use libbagscope. */
#ifndef BAGSCOPE_H
#define BAGSCOPE_H

#include <bagscope/common.h>
#include <bagscope/record.h>
#include <bagscope/bag.h>
#include <bagscope/view.h>
#include <bagscope/write.h>
#include <bagscope/msgdef.h>
#include <bagscope/decode.h>
#include <bagscope/print.h>
#include <bagscope/check.h>
#include <bagscope/expr.h>
#include <bagscope/scan.h>
#include <bagscope/reduce.h>
#include <bagscope/image.h>
#include <bagscope/cloud.h>
#include <bagscope/export.h>
#include <bagscope/find.h>
#include <bagscope/mcap.h>
#include <bagscope/tf.h>
#include <bagscope/log.h>
#include <bagscope/diag.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
